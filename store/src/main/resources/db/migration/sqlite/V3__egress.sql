-- Egress audit log and vault secrets (SQLite). Same conventions as V1: times in epoch microseconds, durations in ms.

-- One row per outbound connection or request. No foreign key to sandboxes: records outlive everything else.
-- seq orders rows by append; PostgreSQL: seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY.
CREATE TABLE egress_audit (
    seq                        INTEGER      NOT NULL PRIMARY KEY AUTOINCREMENT,
    id                         VARCHAR(64)  NOT NULL UNIQUE,
    sandbox_id                 VARCHAR(64)  NOT NULL,
    at                         BIGINT       NOT NULL,
    host                       TEXT         NOT NULL,
    resolved_address           VARCHAR(64),
    port                       INTEGER      NOT NULL,
    method                     VARCHAR(32),
    url                        TEXT,
    mode                       VARCHAR(32)  NOT NULL,
    decision                   VARCHAR(16)  NOT NULL,
    rule                       TEXT,
    status                     INTEGER      NOT NULL,
    bytes_up                   BIGINT       NOT NULL,
    bytes_down                 BIGINT       NOT NULL,
    duration_ms                BIGINT       NOT NULL,
    injected_secrets_json      TEXT         NOT NULL,
    leaked_placeholders_json   TEXT         NOT NULL
);
CREATE INDEX egress_audit_by_sandbox ON egress_audit (sandbox_id, seq);

-- Only nonce and AES-GCM ciphertext; the key never reaches the database. PostgreSQL: BYTEA for the BLOBs.
CREATE TABLE vault_secrets (
    tenant_id   VARCHAR(128) NOT NULL,
    id          VARCHAR(64)  NOT NULL,
    name        VARCHAR(128) NOT NULL,
    nonce       BLOB         NOT NULL,
    ciphertext  BLOB         NOT NULL,
    created_at  BIGINT       NOT NULL,
    updated_at  BIGINT       NOT NULL,
    version     INTEGER      NOT NULL,
    PRIMARY KEY (tenant_id, id)
);
CREATE UNIQUE INDEX vault_secrets_by_name ON vault_secrets (tenant_id, name);
