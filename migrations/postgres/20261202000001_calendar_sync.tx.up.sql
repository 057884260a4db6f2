-- What the calendar gateway needs to say when a session last changed, and
-- to publish feeds and serve sync tokens.

-- The revision that last wrote each row of the schedule.
ALTER TABLE rooms ADD COLUMN revision bigint NOT NULL DEFAULT 0;
--bun:split
ALTER TABLE staff ADD COLUMN revision bigint NOT NULL DEFAULT 0;
--bun:split
ALTER TABLE activities ADD COLUMN revision bigint NOT NULL DEFAULT 0;
--bun:split
ALTER TABLE classes ADD COLUMN revision bigint NOT NULL DEFAULT 0;
--bun:split
ALTER TABLE class_times ADD COLUMN revision bigint NOT NULL DEFAULT 0;
--bun:split
ALTER TABLE series ADD COLUMN revision bigint NOT NULL DEFAULT 0;
--bun:split
ALTER TABLE series_entries ADD COLUMN revision bigint NOT NULL DEFAULT 0;
--bun:split
ALTER TABLE plans ADD COLUMN revision bigint NOT NULL DEFAULT 0;
--bun:split
ALTER TABLE one_offs ADD COLUMN revision bigint NOT NULL DEFAULT 0;
--bun:split
ALTER TABLE day_changes ADD COLUMN revision bigint NOT NULL DEFAULT 0;
--bun:split
ALTER TABLE closures ADD COLUMN revision bigint NOT NULL DEFAULT 0;
--bun:split
ALTER TABLE businesses ADD COLUMN settings_revision bigint NOT NULL DEFAULT 0;

--bun:split

-- When each revision was committed.
CREATE TABLE revisions (
    business_id     bigint NOT NULL REFERENCES businesses (id) ON DELETE CASCADE,
    revision        bigint NOT NULL,
    committed_unix  bigint NOT NULL,
    PRIMARY KEY (business_id, revision)
);

--bun:split

-- What a write removed that sessions depended on: an entry (kind 'group':
-- class time + class), a day change ('change': its session), a closure
-- ('closure', or 'pause' when it paused rotations: from..to).
CREATE TABLE tombstones (
    id             bigserial PRIMARY KEY,
    business_id    bigint NOT NULL REFERENCES businesses (id) ON DELETE CASCADE,
    revision       bigint NOT NULL,
    kind           text NOT NULL,
    class_time_id  bigint,
    class_id       bigint,
    orig_date      date,
    from_date      date,
    to_date        date
);

--bun:split

CREATE INDEX tombstones_business ON tombstones (business_id);

--bun:split

-- The secret of each calendar's plain .ics URL. Rotating it replaces the row.
CREATE TABLE feed_tokens (
    business_id  bigint NOT NULL REFERENCES businesses (id) ON DELETE CASCADE,
    calendar     text NOT NULL,
    token        text NOT NULL UNIQUE,
    PRIMARY KEY (business_id, calendar)
);

--bun:split

-- CalDAV logins with app passwords (stored hashed). A login tied to a staff
-- member with the staff role sees only that member's calendar.
CREATE TABLE app_passwords (
    id           bigserial PRIMARY KEY,
    business_id  bigint NOT NULL REFERENCES businesses (id) ON DELETE CASCADE,
    login        text NOT NULL UNIQUE,
    staff_id     bigint,
    role         text NOT NULL,
    hash         text NOT NULL,
    FOREIGN KEY (business_id, staff_id) REFERENCES staff (business_id, id) ON DELETE CASCADE
);

--bun:split

-- What a calendar held when a sync token was handed out: href → ETag.
CREATE TABLE sync_states (
    token        text PRIMARY KEY,
    business_id  bigint NOT NULL REFERENCES businesses (id) ON DELETE CASCADE,
    calendar     text NOT NULL,
    created_unix bigint NOT NULL,
    items        text NOT NULL
);

--bun:split

CREATE INDEX sync_states_calendar ON sync_states (business_id, calendar, created_unix);
