SELECT _wstart, _wend, avg(current) FROM meters PARTITION BY tbname INTERVAL(10s, 1s) SLIDING(5s) FILL(VALUE, 0);
