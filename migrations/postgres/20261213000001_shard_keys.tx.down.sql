-- The keys as they were before 20261213000001_shard_keys.

ALTER TABLE subscriptions DROP CONSTRAINT subscriptions_business_id_plan_id_fkey;

--bun:split

ALTER TABLE room_bookings DROP CONSTRAINT room_bookings_business_id_client_id_fkey;

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

ALTER TABLE sync_states DROP CONSTRAINT sync_states_pkey;

--bun:split

ALTER TABLE sync_states ADD PRIMARY KEY (token);

--bun:split

ALTER TABLE closure_rooms DROP CONSTRAINT closure_rooms_pkey;

--bun:split

ALTER TABLE closure_rooms ADD PRIMARY KEY (closure_id, room_id);

--bun:split

ALTER TABLE day_change_staff DROP CONSTRAINT day_change_staff_pkey;

--bun:split

ALTER TABLE day_change_staff ADD PRIMARY KEY (day_change_id, position);

--bun:split

ALTER TABLE one_off_clients DROP CONSTRAINT one_off_clients_pkey;

--bun:split

ALTER TABLE one_off_clients ADD PRIMARY KEY (one_off_id, client_id);

--bun:split

ALTER TABLE class_staff DROP CONSTRAINT class_staff_pkey;

--bun:split

ALTER TABLE class_staff ADD PRIMARY KEY (class_id, position);

--bun:split

ALTER TABLE series_entries DROP CONSTRAINT series_entries_business_id_series_id_class_time_id_week_key;

--bun:split

ALTER TABLE series_entries ADD UNIQUE (series_id, class_time_id, week);

--bun:split

CREATE INDEX tombstones_business ON tombstones (business_id);

--bun:split

DO $$
DECLARE t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['series_entries', 'tombstones', 'app_passwords', 'session_bookings'] LOOP
        EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', t, t || '_pkey');
        EXECUTE format('ALTER TABLE %I ADD PRIMARY KEY (id)', t);
    END LOOP;
END $$;

--bun:split

DO $$
DECLARE t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['api_tokens', 'rooms', 'staff', 'activities', 'classes', 'class_times',
        'series', 'plans', 'clients', 'subscriptions', 'one_offs', 'day_changes', 'closures',
        'capacity_rules', 'room_bookings'] LOOP
        EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', t, t || '_pkey');
        EXECUTE format('ALTER TABLE %I ADD PRIMARY KEY (id)', t);
        EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I UNIQUE (business_id, id)', t, t || '_business_id_id_key');
    END LOOP;
END $$;

--bun:split

DO $$
DECLARE fk record;
BEGIN
    FOR fk IN SELECT * FROM shard_keys_fks LOOP
        EXECUTE format('ALTER TABLE %s ADD CONSTRAINT %I %s', fk.tbl, fk.conname, fk.def);
    END LOOP;
END $$;

--bun:split

ALTER TABLE subscriptions ADD CONSTRAINT subscriptions_plan_id_fkey
    FOREIGN KEY (plan_id) REFERENCES plans (id) ON DELETE SET NULL;

--bun:split

ALTER TABLE room_bookings ADD CONSTRAINT room_bookings_client_id_fkey
    FOREIGN KEY (client_id) REFERENCES clients (id) ON DELETE SET NULL;
