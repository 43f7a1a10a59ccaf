-- Paddock store schema, version 8 (SQLite): which node's process runs each session's agent loop, so that one
-- node at a time does (owner_id "<node>@<epoch>", owner_node its node, kept beside it so a survivor finds a lost
-- node's sessions), and whether another node asked the owner to go round again (wake_requested, 0 or 1); and the
-- node labels a sandbox's create asked for (placement.node_labels, JSON; NULL: none), which a relocation asks again.
ALTER TABLE ma_resources ADD COLUMN owner_id TEXT;
ALTER TABLE ma_resources ADD COLUMN owner_node TEXT;
ALTER TABLE ma_resources ADD COLUMN wake_requested INTEGER NOT NULL DEFAULT 0;
CREATE INDEX ma_resources_by_owner_node ON ma_resources (owner_node);
ALTER TABLE sandboxes ADD COLUMN node_labels_json TEXT;
