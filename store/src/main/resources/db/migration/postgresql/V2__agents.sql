-- Managed Agents layer (PostgreSQL): agents and their versions, environments, environment keys and sessions share one
-- table of JSON documents with the columns needed to filter, order and fence; events and the work queue have their own.

CREATE TABLE ma_resources (
    kind        VARCHAR(32) COLLATE "C" NOT NULL,
    id          VARCHAR(96) COLLATE "C" NOT NULL,
    tenant_id   VARCHAR(128) COLLATE "C" NOT NULL,
    unique_key  VARCHAR(256) COLLATE "C" ,
    state       VARCHAR(32) COLLATE "C" ,
    parent_id   VARCHAR(96) COLLATE "C" ,
    ref_id      VARCHAR(96) COLLATE "C" ,
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

-- seq orders events by append.
CREATE TABLE ma_session_events (
    seq          BIGINT       GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id           VARCHAR(64) COLLATE "C" NOT NULL UNIQUE,
    session_id   VARCHAR(64) COLLATE "C" NOT NULL,
    tenant_id    VARCHAR(128) COLLATE "C" NOT NULL,
    type         VARCHAR(64) COLLATE "C" NOT NULL,
    processed_at BIGINT       NOT NULL,
    body_json    TEXT         NOT NULL
);
CREATE INDEX ma_session_events_by_session ON ma_session_events (session_id, seq);

CREATE TABLE ma_work (
    id                VARCHAR(64) COLLATE "C" NOT NULL PRIMARY KEY,
    tenant_id         VARCHAR(128) COLLATE "C" NOT NULL,
    environment_id    VARCHAR(64) COLLATE "C" NOT NULL,
    session_id        VARCHAR(64) COLLATE "C" NOT NULL,
    state             VARCHAR(16) COLLATE "C" NOT NULL,
    worker_id         VARCHAR(256) COLLATE "C" ,
    generation        BIGINT       NOT NULL,
    last_heartbeat    VARCHAR(64) COLLATE "C" ,
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
