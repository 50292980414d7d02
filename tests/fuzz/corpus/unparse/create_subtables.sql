CREATE TABLE d1 USING meters TAGS ('California.SanFrancisco', 2) IF NOT EXISTS d2 USING power.meters (groupId) TAGS (3);
