-- Quick start: a small meter database on the local cluster, then a few queries.
DROP DATABASE IF EXISTS power;
CREATE DATABASE power PRECISION 'ms' VGROUPS 4;
USE power;
CREATE STABLE meters (ts TIMESTAMP, current FLOAT, voltage INT, phase FLOAT)
    TAGS (location VARCHAR(64), groupId INT);
INSERT INTO d1001 USING meters TAGS ('San Francisco', 2) VALUES
    ('2025-01-01 00:00:00.000', 10.25, 219, 0.31) ('2025-01-01 00:00:30.000', 12.5, 221, 0.33)
    ('2025-01-01 00:01:10.000', 11.75, 220, 0.32) ('2025-01-01 00:02:05.000', 10.5, 218, 0.30)
  d1002 USING meters TAGS ('San Francisco', 3) VALUES
    ('2025-01-01 00:00:05.000', 9.5, 222, 0.29) ('2025-01-01 00:01:40.000', 13.25, 223, 0.34)
  d1003 USING meters TAGS ('Los Angeles', 2) VALUES
    ('2025-01-01 00:00:10.000', 11.0, 217, 0.31) ('2025-01-01 00:00:50.000', NULL, 216, 0.30)
    ('2025-01-01 00:02:30.000', 12.0, 225, 0.35);
SHOW TABLES;
SELECT count(*), avg(current), max(voltage) FROM meters;
SELECT tbname, count(*), avg(voltage) FROM meters PARTITION BY tbname ORDER BY tbname;
SELECT _wstart, count(*), sum(voltage), min(current) FROM meters INTERVAL(1m);
SELECT location, count(*), max(current) FROM meters GROUP BY location ORDER BY location;
-- An update (same timestamp) and a delete.
INSERT INTO d1001 VALUES ('2025-01-01 00:00:00.000', 20.0, 230, 0.5);
DELETE FROM d1003 WHERE ts >= '2025-01-01 00:02:00' AND ts < '2025-01-01 00:03:00';
SELECT tbname, ts, current, voltage FROM meters WHERE voltage >= 225 OR tbname = 'd1003' ORDER BY ts;
SELECT db_name, count(*) FROM information_schema.ins_tables GROUP BY db_name;
