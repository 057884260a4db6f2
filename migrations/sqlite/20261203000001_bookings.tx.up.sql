-- A room's capacity over the day, and what is booked: rooms by the hour
-- and places in sessions ("compute the future, store the past").

-- Weekly rules hold on the weekdays listed (comma-separated, 0 = Sunday);
-- overrides hold on from_date..to_date and replace them.
CREATE TABLE capacity_rules (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    business_id   INTEGER NOT NULL,
    room_id       INTEGER NOT NULL,
    weekdays      TEXT NOT NULL DEFAULT '',
    from_date     TEXT,
    to_date       TEXT,
    start_minute  INTEGER NOT NULL,
    end_minute    INTEGER NOT NULL,
    units         INTEGER NOT NULL,
    revision      INTEGER NOT NULL DEFAULT 0,
    UNIQUE (business_id, id),
    FOREIGN KEY (business_id, room_id) REFERENCES rooms (business_id, id) ON DELETE CASCADE
);

--bun:split

CREATE TABLE room_bookings (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    business_id   INTEGER NOT NULL,
    room_id       INTEGER NOT NULL,
    date          TEXT NOT NULL,
    start_minute  INTEGER NOT NULL,
    end_minute    INTEGER NOT NULL,
    units         INTEGER NOT NULL DEFAULT 0,
    client_id     INTEGER REFERENCES clients (id) ON DELETE SET NULL,
    note          TEXT NOT NULL DEFAULT '',
    cancelled     INTEGER NOT NULL DEFAULT 0,
    revision      INTEGER NOT NULL DEFAULT 0,
    UNIQUE (business_id, id),
    FOREIGN KEY (business_id, room_id) REFERENCES rooms (business_id, id)
);

--bun:split

-- A client's place in one session occurrence: a series session by the
-- session it originally is (orig_date, class_time_id, class_id) or a
-- one-off. What the session was when booked is kept beside it, and no rule
-- refers to it, so later edits never rewrite it.
CREATE TABLE session_bookings (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    business_id      INTEGER NOT NULL REFERENCES businesses (id) ON DELETE CASCADE,
    client_id        INTEGER NOT NULL,
    subscription_id  INTEGER,
    orig_date        TEXT,
    class_time_id    INTEGER,
    class_id         INTEGER,
    one_off_id       INTEGER,
    status           TEXT NOT NULL,
    position         INTEGER NOT NULL DEFAULT 0,
    created_unix     INTEGER NOT NULL,
    changed_unix     INTEGER NOT NULL,
    session_date     TEXT NOT NULL,
    start_minute     INTEGER NOT NULL,
    end_minute       INTEGER NOT NULL,
    starts_unix      INTEGER NOT NULL,
    activity         TEXT NOT NULL,
    room             TEXT NOT NULL,
    staff            TEXT NOT NULL,
    label            TEXT NOT NULL DEFAULT '',
    FOREIGN KEY (business_id, client_id) REFERENCES clients (business_id, id) ON DELETE CASCADE
);

--bun:split

CREATE INDEX session_bookings_session ON session_bookings (business_id, orig_date, class_time_id, class_id);

--bun:split

CREATE INDEX session_bookings_one_off ON session_bookings (business_id, one_off_id);

--bun:split

CREATE INDEX session_bookings_client ON session_bookings (business_id, client_id, session_date);

--bun:split

-- A token may act for one client (the client role) or one staff member.
ALTER TABLE api_tokens ADD COLUMN client_id INTEGER;

--bun:split

ALTER TABLE api_tokens ADD COLUMN staff_id INTEGER;
