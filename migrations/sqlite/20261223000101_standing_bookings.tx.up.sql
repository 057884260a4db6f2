-- Standing bookings (docs/standing.md): a client's place in every
-- occurrence of one series session (a class time and class) whose original
-- date falls from from_date to until_date (inclusive; null: no end). One
-- rule, never a row per date: a date's place is computed like every other
-- fact of a session. waitlist: the client accepted to wait on the dates that
-- were full when the place was made.
CREATE TABLE standing_bookings (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    business_id    INTEGER NOT NULL,
    client_id      INTEGER NOT NULL,
    class_time_id  INTEGER NOT NULL,
    class_id       INTEGER NOT NULL,
    from_date      TEXT NOT NULL,
    until_date     TEXT,
    waitlist       INTEGER NOT NULL DEFAULT 0,
    revision       INTEGER NOT NULL DEFAULT 0,
    UNIQUE (business_id, id),
    FOREIGN KEY (business_id, client_id) REFERENCES clients (business_id, id) ON DELETE CASCADE,
    FOREIGN KEY (business_id, class_time_id) REFERENCES class_times (business_id, id),
    FOREIGN KEY (business_id, class_id) REFERENCES classes (business_id, id)
);

--bun:split

CREATE INDEX standing_bookings_client ON standing_bookings (business_id, client_id, id);

--bun:split

-- What happened on one date of a standing place: the client gave it up
-- (late: within 12 hours of the start, which counts on the plan as a late
-- cancellation does).
CREATE TABLE standing_skips (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    business_id  INTEGER NOT NULL,
    standing_id  INTEGER NOT NULL,
    date         TEXT NOT NULL,
    late         INTEGER NOT NULL DEFAULT 0,
    revision     INTEGER NOT NULL DEFAULT 0,
    UNIQUE (business_id, id),
    UNIQUE (business_id, standing_id, date),
    FOREIGN KEY (business_id, standing_id) REFERENCES standing_bookings (business_id, id) ON DELETE CASCADE
);
