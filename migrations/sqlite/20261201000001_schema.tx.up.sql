-- SQLite: dates are TEXT (YYYY-MM-DD), booleans 0/1; AUTOINCREMENT so that
-- ids are never reused (calendar UIDs are built from them).
-- Every table carries business_id, the tenant. References between a
-- business's rows include it, so no row can point into another business.

CREATE TABLE businesses (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    slug        TEXT NOT NULL UNIQUE,
    name        TEXT NOT NULL,
    kind        TEXT NOT NULL,
    currency    TEXT NOT NULL,
    time_zone   TEXT NOT NULL,
    week_start  INTEGER NOT NULL DEFAULT 0 CHECK (week_start IN (0, 1)),
    revision    INTEGER NOT NULL DEFAULT 0,
    created_at  TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP
);

--bun:split

CREATE TABLE api_tokens (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    business_id  INTEGER NOT NULL REFERENCES businesses (id) ON DELETE CASCADE,
    name         TEXT NOT NULL DEFAULT '',
    role         TEXT NOT NULL,
    hash         TEXT NOT NULL UNIQUE,
    created_at   TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP,
    UNIQUE (business_id, id)
);

--bun:split

CREATE TABLE rooms (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    business_id  INTEGER NOT NULL REFERENCES businesses (id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    capacity     INTEGER NOT NULL DEFAULT 1,
    UNIQUE (business_id, id)
);

--bun:split

CREATE TABLE staff (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    business_id  INTEGER NOT NULL REFERENCES businesses (id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    UNIQUE (business_id, id)
);

--bun:split

CREATE TABLE activities (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    business_id  INTEGER NOT NULL REFERENCES businesses (id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    color        TEXT NOT NULL DEFAULT '',
    UNIQUE (business_id, id)
);

--bun:split

CREATE TABLE classes (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    business_id  INTEGER NOT NULL REFERENCES businesses (id) ON DELETE CASCADE,
    activity_id  INTEGER NOT NULL,
    UNIQUE (business_id, id),
    FOREIGN KEY (business_id, activity_id) REFERENCES activities (business_id, id)
);

--bun:split

CREATE TABLE class_staff (
    business_id  INTEGER NOT NULL,
    class_id     INTEGER NOT NULL,
    staff_id     INTEGER NOT NULL,
    position     INTEGER NOT NULL,
    PRIMARY KEY (class_id, position),
    FOREIGN KEY (business_id, class_id) REFERENCES classes (business_id, id) ON DELETE CASCADE,
    FOREIGN KEY (business_id, staff_id) REFERENCES staff (business_id, id)
);

--bun:split

CREATE TABLE class_times (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    business_id     INTEGER NOT NULL REFERENCES businesses (id) ON DELETE CASCADE,
    room_id         INTEGER NOT NULL,
    weekday         INTEGER NOT NULL CHECK (weekday BETWEEN 0 AND 6),
    start_minute    INTEGER NOT NULL,
    end_minute      INTEGER NOT NULL,
    label           TEXT NOT NULL DEFAULT '',
    capacity        INTEGER NOT NULL DEFAULT 0,
    type            TEXT NOT NULL DEFAULT '',
    buffer_minutes  INTEGER NOT NULL DEFAULT 0,
    active          INTEGER NOT NULL DEFAULT 1,
    units           INTEGER NOT NULL DEFAULT 0,
    UNIQUE (business_id, id),
    FOREIGN KEY (business_id, room_id) REFERENCES rooms (business_id, id)
);

--bun:split

CREATE TABLE series (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    business_id  INTEGER NOT NULL REFERENCES businesses (id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    anchor_date  TEXT NOT NULL,
    end_date     TEXT,
    cycle_weeks  INTEGER NOT NULL,
    UNIQUE (business_id, id)
);

--bun:split

CREATE TABLE series_entries (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    business_id    INTEGER NOT NULL,
    series_id      INTEGER NOT NULL,
    class_time_id  INTEGER NOT NULL,
    class_id       INTEGER NOT NULL,
    week           INTEGER NOT NULL,
    UNIQUE (series_id, class_time_id, week),
    FOREIGN KEY (business_id, series_id) REFERENCES series (business_id, id) ON DELETE CASCADE,
    FOREIGN KEY (business_id, class_time_id) REFERENCES class_times (business_id, id),
    FOREIGN KEY (business_id, class_id) REFERENCES classes (business_id, id)
);

--bun:split

CREATE TABLE plans (
    id                  INTEGER PRIMARY KEY AUTOINCREMENT,
    business_id         INTEGER NOT NULL,
    series_id           INTEGER NOT NULL,
    name                TEXT NOT NULL DEFAULT '',
    sessions_per_month  INTEGER NOT NULL DEFAULT 0,
    months              INTEGER NOT NULL,
    price               INTEGER NOT NULL DEFAULT 0, -- thousandths of the currency
    UNIQUE (business_id, id),
    FOREIGN KEY (business_id, series_id) REFERENCES series (business_id, id) ON DELETE CASCADE
);

--bun:split

CREATE TABLE clients (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    business_id  INTEGER NOT NULL REFERENCES businesses (id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    email        TEXT NOT NULL DEFAULT '',
    phone        TEXT NOT NULL DEFAULT '',
    UNIQUE (business_id, id)
);

--bun:split

CREATE INDEX clients_name ON clients (business_id, lower(name));

--bun:split

CREATE TABLE subscriptions (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    business_id  INTEGER NOT NULL,
    client_id    INTEGER NOT NULL,
    series_id    INTEGER NOT NULL,
    plan_id      INTEGER REFERENCES plans (id) ON DELETE SET NULL,
    start_date   TEXT NOT NULL,
    end_date     TEXT,
    UNIQUE (business_id, id),
    FOREIGN KEY (business_id, client_id) REFERENCES clients (business_id, id) ON DELETE CASCADE,
    FOREIGN KEY (business_id, series_id) REFERENCES series (business_id, id) ON DELETE CASCADE
);

--bun:split

CREATE INDEX subscriptions_series ON subscriptions (business_id, series_id);

--bun:split

CREATE TABLE one_offs (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    business_id     INTEGER NOT NULL,
    class_id        INTEGER NOT NULL,
    room_id         INTEGER NOT NULL,
    date            TEXT NOT NULL,
    start_minute    INTEGER NOT NULL,
    end_minute      INTEGER NOT NULL,
    label           TEXT NOT NULL DEFAULT '',
    capacity        INTEGER NOT NULL DEFAULT 0,
    buffer_minutes  INTEGER NOT NULL DEFAULT 0,
    units           INTEGER NOT NULL DEFAULT 0,
    cancelled       INTEGER NOT NULL DEFAULT 0,
    note            TEXT NOT NULL DEFAULT '',
    UNIQUE (business_id, id),
    FOREIGN KEY (business_id, class_id) REFERENCES classes (business_id, id),
    FOREIGN KEY (business_id, room_id) REFERENCES rooms (business_id, id)
);

--bun:split

CREATE TABLE one_off_clients (
    business_id  INTEGER NOT NULL,
    one_off_id   INTEGER NOT NULL,
    client_id    INTEGER NOT NULL,
    PRIMARY KEY (one_off_id, client_id),
    FOREIGN KEY (business_id, one_off_id) REFERENCES one_offs (business_id, id) ON DELETE CASCADE,
    FOREIGN KEY (business_id, client_id) REFERENCES clients (business_id, id) ON DELETE CASCADE
);

--bun:split

-- A day change is keyed by the session it changes: (original date, class
-- time, class). Fields left NULL (or empty) are as the rule makes them.
CREATE TABLE day_changes (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    business_id    INTEGER NOT NULL,
    orig_date      TEXT NOT NULL,
    class_time_id  INTEGER NOT NULL,
    class_id       INTEGER NOT NULL,
    cancelled      INTEGER NOT NULL DEFAULT 0,
    date           TEXT,
    room_id        INTEGER,
    start_minute   INTEGER,
    end_minute     INTEGER,
    new_class_id   INTEGER,
    new_staff      INTEGER NOT NULL DEFAULT 0, -- staff in day_change_staff
    note           TEXT NOT NULL DEFAULT '',
    UNIQUE (business_id, orig_date, class_time_id, class_id),
    FOREIGN KEY (business_id, class_time_id) REFERENCES class_times (business_id, id) ON DELETE CASCADE,
    FOREIGN KEY (business_id, class_id) REFERENCES classes (business_id, id) ON DELETE CASCADE,
    FOREIGN KEY (business_id, room_id) REFERENCES rooms (business_id, id),
    FOREIGN KEY (business_id, new_class_id) REFERENCES classes (business_id, id),
    UNIQUE (business_id, id)
);

--bun:split

CREATE TABLE day_change_staff (
    business_id    INTEGER NOT NULL,
    day_change_id  INTEGER NOT NULL,
    staff_id       INTEGER NOT NULL,
    position       INTEGER NOT NULL,
    PRIMARY KEY (day_change_id, position),
    FOREIGN KEY (business_id, day_change_id) REFERENCES day_changes (business_id, id) ON DELETE CASCADE,
    FOREIGN KEY (business_id, staff_id) REFERENCES staff (business_id, id)
);

--bun:split

CREATE TABLE closures (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    business_id  INTEGER NOT NULL REFERENCES businesses (id) ON DELETE CASCADE,
    from_date    TEXT NOT NULL,
    to_date      TEXT NOT NULL,
    reason       TEXT NOT NULL DEFAULT '',
    pause        INTEGER NOT NULL DEFAULT 0,
    UNIQUE (business_id, id)
);

--bun:split

-- The rooms a closure closes; none: every room.
CREATE TABLE closure_rooms (
    business_id  INTEGER NOT NULL,
    closure_id   INTEGER NOT NULL,
    room_id      INTEGER NOT NULL,
    PRIMARY KEY (closure_id, room_id),
    FOREIGN KEY (business_id, closure_id) REFERENCES closures (business_id, id) ON DELETE CASCADE,
    FOREIGN KEY (business_id, room_id) REFERENCES rooms (business_id, id)
);
