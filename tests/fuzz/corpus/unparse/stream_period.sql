CREATE STREAM IF NOT EXISTS power.s_period PERIOD(1h, 5m) INTO power.hourly AS SELECT _tprev_localtime, _tnext_localtime, _tlocaltime, count(*) FROM meters;
