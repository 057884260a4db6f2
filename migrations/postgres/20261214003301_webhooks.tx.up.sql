-- Webhooks (docs/webhooks.md): the endpoints a business registers, the
-- outbox of its events (written by the guarded write in its transaction,
-- so an event exists exactly when its write committed), each event's
-- delivery to each endpoint that asked for its type, and every attempt.
-- None of it is the business's data: backups leave it out (the secrets
-- with the rest), and events are kept 30 days.
--
-- An endpoint's queue is its pending deliveries in event order, sent by
-- one process at a time: the one whose lease (lease_owner, lease_until_ms)
-- holds; retry_at_ms is when an endpoint whose attempt failed is tried
-- again. Times are Unix milliseconds.
CREATE TABLE webhook_endpoints (
    business_id       bigint NOT NULL REFERENCES businesses (id) ON DELETE CASCADE,
    id                bigserial,
    url               text NOT NULL,
    events            text NOT NULL, -- ',type,type,'
    description       text NOT NULL DEFAULT '',
    secret            text NOT NULL,
    old_secret        text NOT NULL DEFAULT '',
    old_secret_until  bigint NOT NULL DEFAULT 0,
    status            text NOT NULL DEFAULT 'active', -- active, paused, disabled
    disabled_reason   text NOT NULL DEFAULT '',
    created_ms        bigint NOT NULL,
    updated_ms        bigint NOT NULL,
    retry_at_ms       bigint NOT NULL DEFAULT 0,
    lease_owner       text NOT NULL DEFAULT '',
    lease_until_ms    bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (business_id, id)
);

--bun:split

CREATE INDEX webhook_endpoints_due ON webhook_endpoints (retry_at_ms) WHERE status = 'active';

--bun:split

CREATE TABLE webhook_events (
    business_id  bigint NOT NULL REFERENCES businesses (id) ON DELETE CASCADE,
    id           bigserial,
    uid          text NOT NULL,
    type         text NOT NULL,
    revision     bigint NOT NULL,
    created_ms   bigint NOT NULL,
    body         text NOT NULL,
    PRIMARY KEY (business_id, id),
    UNIQUE (business_id, uid)
);

--bun:split

CREATE INDEX webhook_events_created ON webhook_events (created_ms);

--bun:split

CREATE TABLE webhook_deliveries (
    business_id       bigint NOT NULL,
    endpoint_id       bigint NOT NULL,
    event_id          bigint NOT NULL,
    status            text NOT NULL DEFAULT 'pending', -- pending, delivered, failed
    attempts          integer NOT NULL DEFAULT 0,
    first_attempt_ms  bigint NOT NULL DEFAULT 0,
    done_ms           bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (business_id, endpoint_id, event_id),
    FOREIGN KEY (business_id, endpoint_id) REFERENCES webhook_endpoints (business_id, id) ON DELETE CASCADE,
    FOREIGN KEY (business_id, event_id) REFERENCES webhook_events (business_id, id) ON DELETE CASCADE
);

--bun:split

CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (endpoint_id, event_id) WHERE status = 'pending';

--bun:split

CREATE INDEX webhook_deliveries_event ON webhook_deliveries (business_id, event_id);

--bun:split

CREATE TABLE webhook_attempts (
    business_id  bigint NOT NULL,
    id           bigserial,
    endpoint_id  bigint NOT NULL,
    event_id     bigint NOT NULL,
    number       integer NOT NULL,
    at_ms        bigint NOT NULL,
    status       integer NOT NULL,
    latency_ms   integer NOT NULL,
    answer       text NOT NULL DEFAULT '',
    error        text NOT NULL DEFAULT '',
    outcome      text NOT NULL, -- delivered, retry, failed, gone
    PRIMARY KEY (business_id, id),
    FOREIGN KEY (business_id, endpoint_id, event_id) REFERENCES webhook_deliveries (business_id, endpoint_id, event_id) ON DELETE CASCADE
);

--bun:split

CREATE INDEX webhook_attempts_delivery ON webhook_attempts (business_id, endpoint_id, event_id);
