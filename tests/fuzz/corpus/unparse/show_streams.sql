SHOW power.STREAMS LIKE 'avg%';
