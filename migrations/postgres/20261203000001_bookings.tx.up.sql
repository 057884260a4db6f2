-- A room's capacity over the day, and what is booked: rooms by the hour
-- and places in sessions ("compute the future, store the past").

-- Weekly rules hold on the weekdays listed (comma-separated, 0 = Sunday);
-- overrides hold on from_date..to_date and replace them.
CREATE TABLE capacity_rules (
    id            bigserial PRIMARY KEY,
    business_id   bigint NOT NULL,
    room_id       bigint NOT NULL,
    weekdays      text NOT NULL DEFAULT '',
    from_date     date,
    to_date       date,
    start_minute  smallint NOT NULL,
    end_minute    smallint NOT NULL,
    units         integer NOT NULL,
    revision      bigint NOT NULL DEFAULT 0,
    UNIQUE (business_id, id),
    FOREIGN KEY (business_id, room_id) REFERENCES rooms (business_id, id) ON DELETE CASCADE
);

--bun:split

CREATE TABLE room_bookings (
    id            bigserial PRIMARY KEY,
    business_id   bigint NOT NULL,
    room_id       bigint NOT NULL,
    date          date NOT NULL,
    start_minute  smallint NOT NULL,
    end_minute    smallint NOT NULL,
    units         integer NOT NULL DEFAULT 0,
    client_id     bigint REFERENCES clients (id) ON DELETE SET NULL,
    note          text NOT NULL DEFAULT '',
    cancelled     boolean NOT NULL DEFAULT false,
    revision      bigint NOT NULL DEFAULT 0,
    UNIQUE (business_id, id),
    FOREIGN KEY (business_id, room_id) REFERENCES rooms (business_id, id)
);

--bun:split

-- A client's place in one session occurrence: a series session by the
-- session it originally is (orig_date, class_time_id, class_id) or a
-- one-off. What the session was when booked is kept beside it, and no rule
-- refers to it, so later edits never rewrite it.
CREATE TABLE session_bookings (
    id               bigserial PRIMARY KEY,
    business_id      bigint NOT NULL REFERENCES businesses (id) ON DELETE CASCADE,
    client_id        bigint NOT NULL,
    subscription_id  bigint,
    orig_date        date,
    class_time_id    bigint,
    class_id         bigint,
    one_off_id       bigint,
    status           text NOT NULL,
    position         integer NOT NULL DEFAULT 0,
    created_unix     bigint NOT NULL,
    changed_unix     bigint NOT NULL,
    session_date     date NOT NULL,
    start_minute     smallint NOT NULL,
    end_minute       smallint NOT NULL,
    starts_unix      bigint NOT NULL,
    activity         text NOT NULL,
    room             text NOT NULL,
    staff            text NOT NULL,
    label            text NOT NULL DEFAULT '',
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
ALTER TABLE api_tokens ADD COLUMN client_id bigint;

--bun:split

ALTER TABLE api_tokens ADD COLUMN staff_id bigint;
