-- Egress audit log and vault secrets (PostgreSQL). Same conventions as V1: times in epoch microseconds, durations in ms.

-- One row per outbound connection or request. No foreign key to sandboxes: records outlive everything else.
-- seq orders rows by append.
CREATE TABLE egress_audit (
    seq                        BIGINT       GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id                         VARCHAR(64) COLLATE "C" NOT NULL UNIQUE,
    sandbox_id                 VARCHAR(64) COLLATE "C" NOT NULL,
    at                         BIGINT       NOT NULL,
    host                       TEXT         NOT NULL,
    resolved_address           VARCHAR(64) COLLATE "C" ,
    port                       INTEGER      NOT NULL,
    method                     VARCHAR(32) COLLATE "C" ,
    url                        TEXT,
    mode                       VARCHAR(32) COLLATE "C" NOT NULL,
    decision                   VARCHAR(16) COLLATE "C" NOT NULL,
    rule                       TEXT,
    status                     INTEGER      NOT NULL,
    bytes_up                   BIGINT       NOT NULL,
    bytes_down                 BIGINT       NOT NULL,
    duration_ms                BIGINT       NOT NULL,
    injected_secrets_json      TEXT         NOT NULL,
    leaked_placeholders_json   TEXT         NOT NULL
);
CREATE INDEX egress_audit_by_sandbox ON egress_audit (sandbox_id, seq);

-- Only nonce and AES-GCM ciphertext; the key never reaches the database.
CREATE TABLE vault_secrets (
    tenant_id   VARCHAR(128) COLLATE "C" NOT NULL,
    id          VARCHAR(64) COLLATE "C" NOT NULL,
    name        VARCHAR(128) COLLATE "C" NOT NULL,
    nonce       BYTEA         NOT NULL,
    ciphertext  BYTEA         NOT NULL,
    created_at  BIGINT       NOT NULL,
    updated_at  BIGINT       NOT NULL,
    version     INTEGER      NOT NULL,
    PRIMARY KEY (tenant_id, id)
);
CREATE UNIQUE INDEX vault_secrets_by_name ON vault_secrets (tenant_id, name);
