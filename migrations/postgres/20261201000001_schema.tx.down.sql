DROP TABLE IF EXISTS closure_rooms;

--bun:split

DROP TABLE IF EXISTS closures;

--bun:split

DROP TABLE IF EXISTS day_change_staff;

--bun:split

DROP TABLE IF EXISTS day_changes;

--bun:split

DROP TABLE IF EXISTS one_off_clients;

--bun:split

DROP TABLE IF EXISTS one_offs;

--bun:split

DROP TABLE IF EXISTS subscriptions;

--bun:split

DROP TABLE IF EXISTS clients;

--bun:split

DROP TABLE IF EXISTS plans;

--bun:split

DROP TABLE IF EXISTS series_entries;

--bun:split

DROP TABLE IF EXISTS series;

--bun:split

DROP TABLE IF EXISTS class_times;

--bun:split

DROP TABLE IF EXISTS class_staff;

--bun:split

DROP TABLE IF EXISTS classes;

--bun:split

DROP TABLE IF EXISTS activities;

--bun:split

DROP TABLE IF EXISTS staff;

--bun:split

DROP TABLE IF EXISTS rooms;

--bun:split

DROP TABLE IF EXISTS api_tokens;

--bun:split

DROP TABLE IF EXISTS businesses;
