-- Paddock store schema, version 1 (PostgreSQL).
-- The mirror of the SQLite migration of the same version: identity columns for seq, BYTEA for bytes, and the
-- "C" collation on keys, so ids sort and compare byte by byte as they do in SQLite (cursor pagination relies on it).
-- Times are epoch microseconds (UTC) in BIGINT columns named *_at; durations are milliseconds (*_ms), NULL = none.

CREATE TABLE sandboxes (
    id                      VARCHAR(64) COLLATE "C" NOT NULL PRIMARY KEY,
    tenant_id               VARCHAR(128) COLLATE "C" NOT NULL,
    driver                  VARCHAR(64) COLLATE "C" NOT NULL,
    state                   VARCHAR(16) COLLATE "C" NOT NULL,
    spec_json               TEXT         NOT NULL,
    owner_id                VARCHAR(256) COLLATE "C" NOT NULL,
    generation              BIGINT       NOT NULL,
    handle                  TEXT,
    timeout_ms              BIGINT,
    idle_suspend_after_ms   BIGINT,
    idle_terminate_after_ms BIGINT,
    created_at              BIGINT       NOT NULL,
    updated_at              BIGINT       NOT NULL,
    last_activity_at        BIGINT,
    state_reason            TEXT
);
CREATE INDEX sandboxes_by_tenant ON sandboxes (tenant_id, id);
CREATE INDEX sandboxes_by_state ON sandboxes (state);

-- seq orders events by append (two events in one millisecond would tie on their time-sorted ids).
CREATE TABLE sandbox_events (
    seq        BIGINT       GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id         VARCHAR(64) COLLATE "C" NOT NULL UNIQUE,
    sandbox_id VARCHAR(64) COLLATE "C" NOT NULL REFERENCES sandboxes (id) ON DELETE CASCADE,
    tenant_id  VARCHAR(128) COLLATE "C" NOT NULL,
    type       VARCHAR(128) COLLATE "C" NOT NULL,
    at         BIGINT       NOT NULL,
    data_json  TEXT         NOT NULL
);
CREATE INDEX sandbox_events_by_sandbox ON sandbox_events (sandbox_id, seq);

CREATE TABLE checkpoints (
    id         VARCHAR(64) COLLATE "C" NOT NULL PRIMARY KEY,
    sandbox_id VARCHAR(64) COLLATE "C" NOT NULL REFERENCES sandboxes (id) ON DELETE CASCADE,
    tenant_id  VARCHAR(128) COLLATE "C" NOT NULL,
    kind       VARCHAR(64) COLLATE "C" NOT NULL,
    size_bytes BIGINT       NOT NULL,
    sha256     VARCHAR(64) COLLATE "C" NOT NULL,
    created_at BIGINT       NOT NULL
);
CREATE INDEX checkpoints_by_sandbox ON checkpoints (sandbox_id, id);

-- Only the hash of a key's secret is stored; the unique index makes lookup by hash exact and cheap.
CREATE TABLE api_keys (
    id          VARCHAR(64) COLLATE "C" NOT NULL PRIMARY KEY,
    tenant_id   VARCHAR(128) COLLATE "C" NOT NULL,
    name        VARCHAR(256) COLLATE "C" NOT NULL,
    prefix      VARCHAR(32) COLLATE "C" NOT NULL,
    secret_hash VARCHAR(256) COLLATE "C" NOT NULL,
    admin       BOOLEAN      NOT NULL,
    created_at  BIGINT       NOT NULL,
    revoked_at  BIGINT
);
CREATE UNIQUE INDEX api_keys_by_secret_hash ON api_keys (secret_hash);
CREATE INDEX api_keys_by_tenant ON api_keys (tenant_id, id);
