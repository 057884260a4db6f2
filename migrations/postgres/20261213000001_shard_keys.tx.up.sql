-- Ready to shard by business (Citus): every table but businesses has
-- business_id first in its primary key, every foreign key between a
-- business's tables carries it, and every unique constraint includes it
-- except the global lookups (a token's hash, a CalDAV login, a feed
-- token), which the README's "Sharding by business" says how to serve.
-- Ids still come from one sequence per table, so they stay unique across
-- businesses in practice; the database now enforces them per business.
--
-- A foreign key leans on the unique index it references, so the keys
-- cannot change under them: the foreign keys between a business's tables
-- are set aside first and made again, unchanged, at the end (those that
-- reference businesses (id) stay as they are).
--
-- Keys that begin with business_id are also what finds a business's rows
-- when its timetable is loaded: the list tables (a class's staff, a
-- series' entries, …) and the CalDAV logins had no index that begins with
-- it, so every load read the whole table (models TestEveryTableIsFoundByBusiness).
--
-- Every primary key is built again and every foreign key checked again,
-- with the tables locked meanwhile: on 500,000 clients, subscriptions and
-- session bookings (250 MB) it took 14 s on a busy 2-core machine, and
-- left 19 MB less (the unique indexes beside the old keys are gone).

-- The two foreign keys that lacked business_id, replaced at the end.
ALTER TABLE subscriptions DROP CONSTRAINT subscriptions_plan_id_fkey;

--bun:split

ALTER TABLE room_bookings DROP CONSTRAINT room_bookings_client_id_fkey;

--bun:split

CREATE TEMPORARY TABLE shard_keys_fks ON COMMIT DROP AS
SELECT c.conrelid::regclass::text AS tbl, c.conname, pg_get_constraintdef(c.oid) AS def
FROM pg_constraint c
JOIN pg_class t ON t.oid = c.conrelid
WHERE c.contype = 'f'
  AND t.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())
  AND c.confrelid <> 'businesses'::regclass;

--bun:split

DO $$
DECLARE fk record;
BEGIN
    FOR fk IN SELECT * FROM shard_keys_fks LOOP
        EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', fk.tbl, fk.conname);
    END LOOP;
END $$;

--bun:split

-- Tables keyed by id with a unique (business_id, id): that pair becomes the
-- primary key.
DO $$
DECLARE t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['api_tokens', 'rooms', 'staff', 'activities', 'classes', 'class_times',
        'series', 'plans', 'clients', 'subscriptions', 'one_offs', 'day_changes', 'closures',
        'capacity_rules', 'room_bookings'] LOOP
        EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', t, t || '_pkey');
        EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', t, t || '_business_id_id_key');
        EXECUTE format('ALTER TABLE %I ADD PRIMARY KEY (business_id, id)', t);
    END LOOP;
END $$;

--bun:split

-- Tables keyed by id alone.
DO $$
DECLARE t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['series_entries', 'tombstones', 'app_passwords', 'session_bookings'] LOOP
        EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', t, t || '_pkey');
        EXECUTE format('ALTER TABLE %I ADD PRIMARY KEY (business_id, id)', t);
    END LOOP;
END $$;

--bun:split

-- The primary key leads with business_id: the index on it alone is spare.
DROP INDEX tombstones_business;

--bun:split

ALTER TABLE series_entries DROP CONSTRAINT series_entries_series_id_class_time_id_week_key;

--bun:split

ALTER TABLE series_entries ADD UNIQUE (business_id, series_id, class_time_id, week);

--bun:split

-- The lists of ids a row holds.
ALTER TABLE class_staff DROP CONSTRAINT class_staff_pkey;

--bun:split

ALTER TABLE class_staff ADD PRIMARY KEY (business_id, class_id, position);

--bun:split

ALTER TABLE one_off_clients DROP CONSTRAINT one_off_clients_pkey;

--bun:split

ALTER TABLE one_off_clients ADD PRIMARY KEY (business_id, one_off_id, client_id);

--bun:split

ALTER TABLE day_change_staff DROP CONSTRAINT day_change_staff_pkey;

--bun:split

ALTER TABLE day_change_staff ADD PRIMARY KEY (business_id, day_change_id, position);

--bun:split

ALTER TABLE closure_rooms DROP CONSTRAINT closure_rooms_pkey;

--bun:split

ALTER TABLE closure_rooms ADD PRIMARY KEY (business_id, closure_id, room_id);

--bun:split

-- A sync token is always read with its business (from the calendar's URL).
ALTER TABLE sync_states DROP CONSTRAINT sync_states_pkey;

--bun:split

ALTER TABLE sync_states ADD PRIMARY KEY (business_id, token);

--bun:split

DO $$
DECLARE fk record;
BEGIN
    FOR fk IN SELECT * FROM shard_keys_fks LOOP
        EXECUTE format('ALTER TABLE %s ADD CONSTRAINT %I %s', fk.tbl, fk.conname, fk.def);
    END LOOP;
END $$;

--bun:split

-- Removing a plan or a client clears the reference, and only the
-- reference: business_id is part of the key (ON DELETE SET NULL with a
-- column list, PostgreSQL 15).
ALTER TABLE subscriptions ADD CONSTRAINT subscriptions_business_id_plan_id_fkey
    FOREIGN KEY (business_id, plan_id) REFERENCES plans (business_id, id) ON DELETE SET NULL (plan_id);

--bun:split

ALTER TABLE room_bookings ADD CONSTRAINT room_bookings_business_id_client_id_fkey
    FOREIGN KEY (business_id, client_id) REFERENCES clients (business_id, id) ON DELETE SET NULL (client_id);
