SELECT 1 + 2 * 3, -4, 'it''s', "x\ny", TRUE, NULL, today();
