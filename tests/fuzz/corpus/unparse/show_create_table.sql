SHOW CREATE STABLE power.meters;
