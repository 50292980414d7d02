USE power; SELECT 1; -- comment
/* block */ SHOW STABLES;
