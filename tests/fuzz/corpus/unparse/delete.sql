DELETE FROM power.d1 WHERE ts < NOW - 1d;
