-- Every table carries business_id, the tenant. References between a
-- business's rows include it, so no row can point into another business.

CREATE TABLE businesses (
    id          bigserial PRIMARY KEY,
    slug        text NOT NULL UNIQUE,
    name        text NOT NULL,
    kind        text NOT NULL,
    currency    text NOT NULL,
    time_zone   text NOT NULL,
    week_start  smallint NOT NULL DEFAULT 0 CHECK (week_start IN (0, 1)),
    revision    bigint NOT NULL DEFAULT 0,
    created_at  timestamptz NOT NULL DEFAULT now()
);

--bun:split

CREATE TABLE api_tokens (
    id           bigserial PRIMARY KEY,
    business_id  bigint NOT NULL REFERENCES businesses (id) ON DELETE CASCADE,
    name         text NOT NULL DEFAULT '',
    role         text NOT NULL,
    hash         text NOT NULL UNIQUE,
    created_at   timestamptz NOT NULL DEFAULT now(),
    UNIQUE (business_id, id)
);

--bun:split

CREATE TABLE rooms (
    id           bigserial PRIMARY KEY,
    business_id  bigint NOT NULL REFERENCES businesses (id) ON DELETE CASCADE,
    name         text NOT NULL,
    capacity     integer NOT NULL DEFAULT 1,
    UNIQUE (business_id, id)
);

--bun:split

CREATE TABLE staff (
    id           bigserial PRIMARY KEY,
    business_id  bigint NOT NULL REFERENCES businesses (id) ON DELETE CASCADE,
    name         text NOT NULL,
    UNIQUE (business_id, id)
);

--bun:split

CREATE TABLE activities (
    id           bigserial PRIMARY KEY,
    business_id  bigint NOT NULL REFERENCES businesses (id) ON DELETE CASCADE,
    name         text NOT NULL,
    color        text NOT NULL DEFAULT '',
    UNIQUE (business_id, id)
);

--bun:split

CREATE TABLE classes (
    id           bigserial PRIMARY KEY,
    business_id  bigint NOT NULL REFERENCES businesses (id) ON DELETE CASCADE,
    activity_id  bigint NOT NULL,
    UNIQUE (business_id, id),
    FOREIGN KEY (business_id, activity_id) REFERENCES activities (business_id, id)
);

--bun:split

CREATE TABLE class_staff (
    business_id  bigint NOT NULL,
    class_id     bigint NOT NULL,
    staff_id     bigint NOT NULL,
    position     integer NOT NULL,
    PRIMARY KEY (class_id, position),
    FOREIGN KEY (business_id, class_id) REFERENCES classes (business_id, id) ON DELETE CASCADE,
    FOREIGN KEY (business_id, staff_id) REFERENCES staff (business_id, id)
);

--bun:split

CREATE TABLE class_times (
    id              bigserial PRIMARY KEY,
    business_id     bigint NOT NULL REFERENCES businesses (id) ON DELETE CASCADE,
    room_id         bigint NOT NULL,
    weekday         smallint NOT NULL CHECK (weekday BETWEEN 0 AND 6),
    start_minute    smallint NOT NULL,
    end_minute      smallint NOT NULL,
    label           text NOT NULL DEFAULT '',
    capacity        integer NOT NULL DEFAULT 0,
    type            text NOT NULL DEFAULT '',
    buffer_minutes  integer NOT NULL DEFAULT 0,
    active          boolean NOT NULL DEFAULT true,
    units           integer NOT NULL DEFAULT 0,
    UNIQUE (business_id, id),
    FOREIGN KEY (business_id, room_id) REFERENCES rooms (business_id, id)
);

--bun:split

CREATE TABLE series (
    id           bigserial PRIMARY KEY,
    business_id  bigint NOT NULL REFERENCES businesses (id) ON DELETE CASCADE,
    name         text NOT NULL,
    anchor_date  date NOT NULL,
    end_date     date,
    cycle_weeks  integer NOT NULL,
    UNIQUE (business_id, id)
);

--bun:split

CREATE TABLE series_entries (
    id             bigserial PRIMARY KEY,
    business_id    bigint NOT NULL,
    series_id      bigint NOT NULL,
    class_time_id  bigint NOT NULL,
    class_id       bigint NOT NULL,
    week           integer NOT NULL,
    UNIQUE (series_id, class_time_id, week),
    FOREIGN KEY (business_id, series_id) REFERENCES series (business_id, id) ON DELETE CASCADE,
    FOREIGN KEY (business_id, class_time_id) REFERENCES class_times (business_id, id),
    FOREIGN KEY (business_id, class_id) REFERENCES classes (business_id, id)
);

--bun:split

CREATE TABLE plans (
    id                  bigserial PRIMARY KEY,
    business_id         bigint NOT NULL,
    series_id           bigint NOT NULL,
    name                text NOT NULL DEFAULT '',
    sessions_per_month  integer NOT NULL DEFAULT 0,
    months              integer NOT NULL,
    price               bigint NOT NULL DEFAULT 0, -- thousandths of the currency
    UNIQUE (business_id, id),
    FOREIGN KEY (business_id, series_id) REFERENCES series (business_id, id) ON DELETE CASCADE
);

--bun:split

CREATE TABLE clients (
    id           bigserial PRIMARY KEY,
    business_id  bigint NOT NULL REFERENCES businesses (id) ON DELETE CASCADE,
    name         text NOT NULL,
    email        text NOT NULL DEFAULT '',
    phone        text NOT NULL DEFAULT '',
    UNIQUE (business_id, id)
);

--bun:split

CREATE INDEX clients_name ON clients (business_id, lower(name));

--bun:split

CREATE TABLE subscriptions (
    id           bigserial PRIMARY KEY,
    business_id  bigint NOT NULL,
    client_id    bigint NOT NULL,
    series_id    bigint NOT NULL,
    plan_id      bigint REFERENCES plans (id) ON DELETE SET NULL,
    start_date   date NOT NULL,
    end_date     date,
    UNIQUE (business_id, id),
    FOREIGN KEY (business_id, client_id) REFERENCES clients (business_id, id) ON DELETE CASCADE,
    FOREIGN KEY (business_id, series_id) REFERENCES series (business_id, id) ON DELETE CASCADE
);

--bun:split

CREATE INDEX subscriptions_series ON subscriptions (business_id, series_id);

--bun:split

CREATE TABLE one_offs (
    id              bigserial PRIMARY KEY,
    business_id     bigint NOT NULL,
    class_id        bigint NOT NULL,
    room_id         bigint NOT NULL,
    date            date NOT NULL,
    start_minute    smallint NOT NULL,
    end_minute      smallint NOT NULL,
    label           text NOT NULL DEFAULT '',
    capacity        integer NOT NULL DEFAULT 0,
    buffer_minutes  integer NOT NULL DEFAULT 0,
    units           integer NOT NULL DEFAULT 0,
    cancelled       boolean NOT NULL DEFAULT false,
    note            text NOT NULL DEFAULT '',
    UNIQUE (business_id, id),
    FOREIGN KEY (business_id, class_id) REFERENCES classes (business_id, id),
    FOREIGN KEY (business_id, room_id) REFERENCES rooms (business_id, id)
);

--bun:split

CREATE TABLE one_off_clients (
    business_id  bigint NOT NULL,
    one_off_id   bigint NOT NULL,
    client_id    bigint NOT NULL,
    PRIMARY KEY (one_off_id, client_id),
    FOREIGN KEY (business_id, one_off_id) REFERENCES one_offs (business_id, id) ON DELETE CASCADE,
    FOREIGN KEY (business_id, client_id) REFERENCES clients (business_id, id) ON DELETE CASCADE
);

--bun:split

-- A day change is keyed by the session it changes: (original date, class
-- time, class). Fields left NULL (or empty) are as the rule makes them.
CREATE TABLE day_changes (
    id             bigserial PRIMARY KEY,
    business_id    bigint NOT NULL,
    orig_date      date NOT NULL,
    class_time_id  bigint NOT NULL,
    class_id       bigint NOT NULL,
    cancelled      boolean NOT NULL DEFAULT false,
    date           date,
    room_id        bigint,
    start_minute   smallint,
    end_minute     smallint,
    new_class_id   bigint,
    new_staff      boolean NOT NULL DEFAULT false, -- staff in day_change_staff
    note           text NOT NULL DEFAULT '',
    UNIQUE (business_id, orig_date, class_time_id, class_id),
    FOREIGN KEY (business_id, class_time_id) REFERENCES class_times (business_id, id) ON DELETE CASCADE,
    FOREIGN KEY (business_id, class_id) REFERENCES classes (business_id, id) ON DELETE CASCADE,
    FOREIGN KEY (business_id, room_id) REFERENCES rooms (business_id, id),
    FOREIGN KEY (business_id, new_class_id) REFERENCES classes (business_id, id),
    UNIQUE (business_id, id)
);

--bun:split

CREATE TABLE day_change_staff (
    business_id    bigint NOT NULL,
    day_change_id  bigint NOT NULL,
    staff_id       bigint NOT NULL,
    position       integer NOT NULL,
    PRIMARY KEY (day_change_id, position),
    FOREIGN KEY (business_id, day_change_id) REFERENCES day_changes (business_id, id) ON DELETE CASCADE,
    FOREIGN KEY (business_id, staff_id) REFERENCES staff (business_id, id)
);

--bun:split

CREATE TABLE closures (
    id           bigserial PRIMARY KEY,
    business_id  bigint NOT NULL REFERENCES businesses (id) ON DELETE CASCADE,
    from_date    date NOT NULL,
    to_date      date NOT NULL,
    reason       text NOT NULL DEFAULT '',
    pause        boolean NOT NULL DEFAULT false,
    UNIQUE (business_id, id)
);

--bun:split

-- The rooms a closure closes; none: every room.
CREATE TABLE closure_rooms (
    business_id  bigint NOT NULL,
    closure_id   bigint NOT NULL,
    room_id      bigint NOT NULL,
    PRIMARY KEY (closure_id, room_id),
    FOREIGN KEY (business_id, closure_id) REFERENCES closures (business_id, id) ON DELETE CASCADE,
    FOREIGN KEY (business_id, room_id) REFERENCES rooms (business_id, id)
);
