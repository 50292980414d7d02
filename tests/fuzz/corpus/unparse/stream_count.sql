CREATE STREAM s_count COUNT_WINDOW(1000, 100, voltage, current) FROM meters PARTITION BY tbname INTO out AS SELECT _twstart, avg(voltage) FROM %%trows;
