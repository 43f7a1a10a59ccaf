-- Paddock store schema, version 5 (PostgreSQL): snapshots are checkpoints with a name, unique within their tenant
-- (NULL names, the unnamed checkpoints, never collide).
ALTER TABLE checkpoints ADD COLUMN name VARCHAR(64) COLLATE "C";
CREATE UNIQUE INDEX checkpoints_by_tenant_name ON checkpoints (tenant_id, name);
