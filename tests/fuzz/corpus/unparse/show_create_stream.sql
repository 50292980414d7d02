SHOW CREATE STREAM power.avg_stream;
