-- Managed Agents layer (SQLite): agents and their versions, environments, environment keys and sessions share one
-- table of JSON documents with the columns needed to filter, order and fence; events and the work queue have their own.

CREATE TABLE ma_resources (
    kind        VARCHAR(32)  NOT NULL,
    id          VARCHAR(96)  NOT NULL,
    tenant_id   VARCHAR(128) NOT NULL,
    unique_key  VARCHAR(256),
    state       VARCHAR(32),
    parent_id   VARCHAR(96),
    ref_id      VARCHAR(96),
    aux         TEXT,
    version     BIGINT       NOT NULL,
    revision    BIGINT       NOT NULL,
    created_at  BIGINT       NOT NULL,
    updated_at  BIGINT       NOT NULL,
    archived_at BIGINT,
    body_json   TEXT         NOT NULL,
    PRIMARY KEY (kind, id)
);
CREATE INDEX ma_resources_by_tenant ON ma_resources (kind, tenant_id, id);
CREATE INDEX ma_resources_by_parent ON ma_resources (kind, parent_id, id);
-- NULL keys never collide, so only resources that carry a unique key are constrained.
CREATE UNIQUE INDEX ma_resources_unique_key ON ma_resources (kind, tenant_id, unique_key);

-- seq orders events by append; PostgreSQL: seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY.
CREATE TABLE ma_session_events (
    seq          INTEGER      NOT NULL PRIMARY KEY AUTOINCREMENT,
    id           VARCHAR(64)  NOT NULL UNIQUE,
    session_id   VARCHAR(64)  NOT NULL,
    tenant_id    VARCHAR(128) NOT NULL,
    type         VARCHAR(64)  NOT NULL,
    processed_at BIGINT       NOT NULL,
    body_json    TEXT         NOT NULL
);
CREATE INDEX ma_session_events_by_session ON ma_session_events (session_id, seq);

CREATE TABLE ma_work (
    id                VARCHAR(64)  NOT NULL PRIMARY KEY,
    tenant_id         VARCHAR(128) NOT NULL,
    environment_id    VARCHAR(64)  NOT NULL,
    session_id        VARCHAR(64)  NOT NULL,
    state             VARCHAR(16)  NOT NULL,
    worker_id         VARCHAR(256),
    generation        BIGINT       NOT NULL,
    last_heartbeat    VARCHAR(64),
    lease_expires_at  BIGINT,
    ttl_seconds       BIGINT       NOT NULL,
    created_at        BIGINT       NOT NULL,
    claimed_at        BIGINT,
    acknowledged_at   BIGINT,
    started_at        BIGINT,
    stop_requested_at BIGINT,
    stopped_at        BIGINT,
    metadata_json     TEXT         NOT NULL,
    revision          BIGINT       NOT NULL
);
CREATE INDEX ma_work_by_environment ON ma_work (environment_id, state, created_at);
CREATE INDEX ma_work_by_session ON ma_work (session_id, state);
