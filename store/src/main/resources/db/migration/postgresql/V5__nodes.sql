-- Paddock store schema, version 5 (PostgreSQL): several servers on one database act as nodes of one cluster.
-- A node is a data directory's server: its row carries its address, drivers, labels, free capacity, state and the
-- lease its heartbeat renews; epoch grows with every process of the node that joins (owner ids are "<node>@<epoch>").
CREATE TABLE nodes (
    id                VARCHAR(64) COLLATE "C" NOT NULL PRIMARY KEY,
    epoch             BIGINT       NOT NULL,
    url               TEXT         NOT NULL,
    drivers_json      TEXT         NOT NULL,
    labels_json       TEXT         NOT NULL,
    memory_free_bytes BIGINT       NOT NULL,
    pids_free         BIGINT       NOT NULL,
    sandbox_count     BIGINT       NOT NULL,
    state             VARCHAR(16) COLLATE "C" NOT NULL,
    joined_at         BIGINT       NOT NULL,
    heartbeat_at      BIGINT       NOT NULL,
    lease_expires_at  BIGINT       NOT NULL
);

-- Values the whole cluster shares (the secret nodes authenticate forwarded requests with).
CREATE TABLE cluster_settings (
    name  VARCHAR(64) COLLATE "C" NOT NULL PRIMARY KEY,
    value TEXT         NOT NULL
);

-- The node holding a sandbox: its owner id without the epoch, kept beside it so a node finds its own sandboxes.
ALTER TABLE sandboxes ADD COLUMN node_id VARCHAR(256) COLLATE "C";
UPDATE sandboxes SET node_id = split_part(owner_id, '@', 1);
ALTER TABLE sandboxes ALTER COLUMN node_id SET NOT NULL;
CREATE INDEX sandboxes_by_node ON sandboxes (node_id, state);
