DROP INDEX IF EXISTS app_passwords_business;

--bun:split

DROP INDEX IF EXISTS one_off_clients_business;

--bun:split

DROP INDEX IF EXISTS closure_rooms_business;

--bun:split

DROP INDEX IF EXISTS day_change_staff_business;

--bun:split

DROP INDEX IF EXISTS series_entries_business;

--bun:split

DROP INDEX IF EXISTS class_staff_business;
