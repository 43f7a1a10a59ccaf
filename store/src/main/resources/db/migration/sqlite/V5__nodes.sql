-- Paddock store schema, version 5 (SQLite): the tables of nodes, the mirror of the PostgreSQL migration. A SQLite store
-- has one server (its data directory's lock), which never joins a cluster: the tables stay empty but for node_id.
-- PostgreSQL: COLLATE "C" on keys; node_id is filled with split_part(owner_id, '@', 1) and then made NOT NULL.
CREATE TABLE nodes (
    id                VARCHAR(64)  NOT NULL PRIMARY KEY,
    epoch             BIGINT       NOT NULL,
    url               TEXT         NOT NULL,
    drivers_json      TEXT         NOT NULL,
    labels_json       TEXT         NOT NULL,
    memory_free_bytes BIGINT       NOT NULL,
    pids_free         BIGINT       NOT NULL,
    sandbox_count     BIGINT       NOT NULL,
    state             VARCHAR(16)  NOT NULL,
    joined_at         BIGINT       NOT NULL,
    heartbeat_at      BIGINT       NOT NULL,
    lease_expires_at  BIGINT       NOT NULL
);

CREATE TABLE cluster_settings (
    name  VARCHAR(64)  NOT NULL PRIMARY KEY,
    value TEXT         NOT NULL
);

-- owner ids of a single server have no '@': the node is the owner
ALTER TABLE sandboxes ADD COLUMN node_id VARCHAR(256) NOT NULL DEFAULT '';
UPDATE sandboxes SET node_id = CASE WHEN instr(owner_id, '@') > 0 THEN substr(owner_id, 1, instr(owner_id, '@') - 1) ELSE owner_id END;
CREATE INDEX sandboxes_by_node ON sandboxes (node_id, state);
