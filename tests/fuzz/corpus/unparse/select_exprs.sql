SELECT CASE WHEN a IS NULL THEN 0 ELSE CAST(a AS BIGINT) END, IF(b > 1, 'y', 'n'), COUNT(DISTINCT c), a || b, ~a & b | c, t.*, `odd name` FROM t;
