INSERT INTO d9 USING meters (groupId) TAGS (9) (ts, current) VALUES (1700000000000 + 5s, 1.0) d10 VALUES (NOW() - 2h, TRUE);
