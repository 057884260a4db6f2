DROP TABLE IF EXISTS accepted_clashes;
