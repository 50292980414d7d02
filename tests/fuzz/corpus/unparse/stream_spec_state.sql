CREATE STREAM s_tag_state STATE_WINDOW(voltage >= 220 + groupId) FROM meters PARTITION BY tbname INTO meters_state_out AS SELECT _twstart AS ts, _twend AS te, COUNT(*) AS cnt FROM %%trows;
