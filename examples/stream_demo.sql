-- Stream demo: per meter, one output row per minute of readings, and a WebSocket
-- notification when each minute closes. scripts/demo-stream.sh runs this file, loads
-- generated meter data and shows the output table and the notifications received.
DROP DATABASE IF EXISTS demo;
CREATE DATABASE demo PRECISION 'ms' VGROUPS 2;
USE demo;
CREATE STABLE meters (ts TIMESTAMP, current FLOAT, voltage INT, phase FLOAT)
    TAGS (location VARCHAR(64), groupId INT);
CREATE STREAM meters_1m INTERVAL(1m) SLIDING(1m) FROM meters PARTITION BY tbname
    NOTIFY('ws://127.0.0.1:@NOTIFY_PORT@/demo') ON (WINDOW_CLOSE)
    INTO meters_1m (wstart, readings, avg_current, max_voltage)
    AS SELECT _twstart, count(*), avg(current), max(voltage) FROM %%trows;
SHOW STREAMS;
