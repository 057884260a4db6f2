-- What the calendar gateway needs to say when a session last changed, and
-- to publish feeds and serve sync tokens.

-- The revision that last wrote each row of the schedule.
ALTER TABLE rooms ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
--bun:split
ALTER TABLE staff ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
--bun:split
ALTER TABLE activities ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
--bun:split
ALTER TABLE classes ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
--bun:split
ALTER TABLE class_times ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
--bun:split
ALTER TABLE series ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
--bun:split
ALTER TABLE series_entries ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
--bun:split
ALTER TABLE plans ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
--bun:split
ALTER TABLE one_offs ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
--bun:split
ALTER TABLE day_changes ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
--bun:split
ALTER TABLE closures ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
--bun:split
ALTER TABLE businesses ADD COLUMN settings_revision INTEGER NOT NULL DEFAULT 0;

--bun:split

-- When each revision was committed.
CREATE TABLE revisions (
    business_id     INTEGER NOT NULL REFERENCES businesses (id) ON DELETE CASCADE,
    revision        INTEGER NOT NULL,
    committed_unix  INTEGER NOT NULL,
    PRIMARY KEY (business_id, revision)
);

--bun:split

-- What a write removed that sessions depended on: an entry (kind 'group':
-- class time + class), a day change ('change': its session), a closure
-- ('closure', or 'pause' when it paused rotations: from..to).
CREATE TABLE tombstones (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    business_id    INTEGER NOT NULL REFERENCES businesses (id) ON DELETE CASCADE,
    revision       INTEGER NOT NULL,
    kind           TEXT NOT NULL,
    class_time_id  INTEGER,
    class_id       INTEGER,
    orig_date      TEXT,
    from_date      TEXT,
    to_date        TEXT
);

--bun:split

CREATE INDEX tombstones_business ON tombstones (business_id);

--bun:split

-- The secret of each calendar's plain .ics URL. Rotating it replaces the row.
CREATE TABLE feed_tokens (
    business_id  INTEGER NOT NULL REFERENCES businesses (id) ON DELETE CASCADE,
    calendar     TEXT NOT NULL,
    token        TEXT NOT NULL UNIQUE,
    PRIMARY KEY (business_id, calendar)
);

--bun:split

-- CalDAV logins with app passwords (stored hashed). A login tied to a staff
-- member with the staff role sees only that member's calendar.
CREATE TABLE app_passwords (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    business_id  INTEGER NOT NULL REFERENCES businesses (id) ON DELETE CASCADE,
    login        TEXT NOT NULL UNIQUE,
    staff_id     INTEGER,
    role         TEXT NOT NULL,
    hash         TEXT NOT NULL,
    FOREIGN KEY (business_id, staff_id) REFERENCES staff (business_id, id) ON DELETE CASCADE
);

--bun:split

-- What a calendar held when a sync token was handed out: href → ETag.
CREATE TABLE sync_states (
    token        TEXT PRIMARY KEY,
    business_id  INTEGER NOT NULL REFERENCES businesses (id) ON DELETE CASCADE,
    calendar     TEXT NOT NULL,
    created_unix INTEGER NOT NULL,
    items        TEXT NOT NULL
);

--bun:split

CREATE INDEX sync_states_calendar ON sync_states (business_id, calendar, created_unix);
