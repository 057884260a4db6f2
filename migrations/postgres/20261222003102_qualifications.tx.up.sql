-- Qualifications (issue 31, engine/coverage.go): the activities a staff
-- member may give, one row a pair. A staff member with none may give any.
-- They go with their staff member and with their activity.
CREATE TABLE qualifications (
    business_id  bigint NOT NULL REFERENCES businesses (id) ON DELETE CASCADE,
    id           bigserial,
    staff_id     bigint NOT NULL,
    activity_id  bigint NOT NULL,
    revision     bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (business_id, id),
    FOREIGN KEY (business_id, staff_id) REFERENCES staff (business_id, id) ON DELETE CASCADE,
    FOREIGN KEY (business_id, activity_id) REFERENCES activities (business_id, id) ON DELETE CASCADE
);
