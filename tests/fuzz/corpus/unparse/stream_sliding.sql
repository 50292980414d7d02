CREATE STREAM s_sliding SLIDING(10s, 1s) FROM meters PARTITION BY tbname INTO out AS SELECT _tprev_ts, _tcurrent_ts, _tnext_ts, sum(current) FROM %%tbname;
