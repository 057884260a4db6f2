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
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    business_id       INTEGER NOT NULL REFERENCES businesses (id) ON DELETE CASCADE,
    url               TEXT NOT NULL,
    events            TEXT NOT NULL, -- ',type,type,'
    description       TEXT NOT NULL DEFAULT '',
    secret            TEXT NOT NULL,
    old_secret        TEXT NOT NULL DEFAULT '',
    old_secret_until  INTEGER NOT NULL DEFAULT 0,
    status            TEXT NOT NULL DEFAULT 'active', -- active, paused, disabled
    disabled_reason   TEXT NOT NULL DEFAULT '',
    created_ms        INTEGER NOT NULL,
    updated_ms        INTEGER NOT NULL,
    retry_at_ms       INTEGER NOT NULL DEFAULT 0,
    lease_owner       TEXT NOT NULL DEFAULT '',
    lease_until_ms    INTEGER NOT NULL DEFAULT 0,
    UNIQUE (business_id, id)
);

--bun:split

CREATE INDEX webhook_endpoints_due ON webhook_endpoints (retry_at_ms) WHERE status = 'active';

--bun:split

CREATE TABLE webhook_events (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    business_id  INTEGER NOT NULL REFERENCES businesses (id) ON DELETE CASCADE,
    uid          TEXT NOT NULL,
    type         TEXT NOT NULL,
    revision     INTEGER NOT NULL,
    created_ms   INTEGER NOT NULL,
    body         TEXT NOT NULL,
    UNIQUE (business_id, id),
    UNIQUE (business_id, uid)
);

--bun:split

CREATE INDEX webhook_events_created ON webhook_events (created_ms);

--bun:split

CREATE TABLE webhook_deliveries (
    business_id       INTEGER NOT NULL,
    endpoint_id       INTEGER NOT NULL,
    event_id          INTEGER NOT NULL,
    status            TEXT NOT NULL DEFAULT 'pending', -- pending, delivered, failed
    attempts          INTEGER NOT NULL DEFAULT 0,
    first_attempt_ms  INTEGER NOT NULL DEFAULT 0,
    done_ms           INTEGER NOT NULL DEFAULT 0,
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
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    business_id  INTEGER NOT NULL,
    endpoint_id  INTEGER NOT NULL,
    event_id     INTEGER NOT NULL,
    number       INTEGER NOT NULL,
    at_ms        INTEGER NOT NULL,
    status       INTEGER NOT NULL,
    latency_ms   INTEGER NOT NULL,
    answer       TEXT NOT NULL DEFAULT '',
    error        TEXT NOT NULL DEFAULT '',
    outcome      TEXT NOT NULL, -- delivered, retry, failed, gone
    FOREIGN KEY (business_id, endpoint_id, event_id) REFERENCES webhook_deliveries (business_id, endpoint_id, event_id) ON DELETE CASCADE
);

--bun:split

CREATE INDEX webhook_attempts_delivery ON webhook_attempts (business_id, endpoint_id, event_id);
