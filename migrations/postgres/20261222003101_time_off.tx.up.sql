-- Time off and working hours (issue 31, engine/cover.go): rules about a
-- staff member, read for any date like closures, never rows per session.
-- A time off runs from from_date at from_minute to to_date at to_minute
-- (0: the end of that day). Working hours hold from from_date until the
-- staff member's next set; spans is 'weekday:start-end' in minutes,
-- comma-separated (0 = Sunday), empty for no limit. Both go with their
-- staff member. A staff member has one set of hours a date (the engine
-- checks it: a write may replace one set with another).
CREATE TABLE time_offs (
    business_id  bigint NOT NULL REFERENCES businesses (id) ON DELETE CASCADE,
    id           bigserial,
    staff_id     bigint NOT NULL,
    from_date    date NOT NULL,
    to_date      date NOT NULL,
    from_minute  smallint NOT NULL DEFAULT 0,
    to_minute    smallint NOT NULL DEFAULT 0,
    reason       text NOT NULL DEFAULT '',
    revision     bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (business_id, id),
    FOREIGN KEY (business_id, staff_id) REFERENCES staff (business_id, id) ON DELETE CASCADE
);

--bun:split

CREATE TABLE working_hours (
    business_id  bigint NOT NULL REFERENCES businesses (id) ON DELETE CASCADE,
    id           bigserial,
    staff_id     bigint NOT NULL,
    from_date    date NOT NULL,
    spans        text NOT NULL DEFAULT '',
    revision     bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (business_id, id),
    FOREIGN KEY (business_id, staff_id) REFERENCES staff (business_id, id) ON DELETE CASCADE
);
