-- PostgreSQL's 20261213000001_shard_keys makes business_id lead every key,
-- so that a distributed PostgreSQL can keep a business on one node. An
-- SQLite database is one file on one machine and is never sharded, and
-- its keys already keep every reference inside its business (the unique
-- (business_id, id) beside each id): changing a key in SQLite means
-- rebuilding the table, a copy of every row for nothing. Only what the
-- code needs of both is here: a sync token is stored per business.
CREATE UNIQUE INDEX sync_states_business_token ON sync_states (business_id, token);
