CREATE STREAM s_session SESSION(ts, 10s) FROM meters PARTITION BY tbname, groupId INTO out TAGS (gid INT AS %%2) AS SELECT _twstart, count(*) FROM %%trows;
