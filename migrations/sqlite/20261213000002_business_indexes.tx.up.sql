-- The tables of a value's lists (a class's staff, a series' entries, a day
-- change's staff, a closure's rooms, a one-off's clients) and the CalDAV
-- logins are read by business when a business's timetable is loaded, and
-- had no index that starts with it: every load read the whole table, so a
-- load took longer the more businesses the database held (10,000
-- businesses: 1.4 million series entries read for each). On PostgreSQL the
-- keys of 20261213000001_shard_keys, which begin with business_id, do this.
CREATE INDEX IF NOT EXISTS class_staff_business ON class_staff (business_id, class_id);

--bun:split

CREATE INDEX IF NOT EXISTS series_entries_business ON series_entries (business_id, series_id);

--bun:split

CREATE INDEX IF NOT EXISTS day_change_staff_business ON day_change_staff (business_id, day_change_id);

--bun:split

CREATE INDEX IF NOT EXISTS closure_rooms_business ON closure_rooms (business_id, closure_id);

--bun:split

CREATE INDEX IF NOT EXISTS one_off_clients_business ON one_off_clients (business_id, one_off_id);

--bun:split

CREATE INDEX IF NOT EXISTS app_passwords_business ON app_passwords (business_id, staff_id);
