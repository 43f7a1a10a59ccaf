-- Paddock store schema, version 7 (PostgreSQL): where each checkpoint's archive lives (the directory it was
-- written in; NULL for archives written before, which are in their node's own data directory), and the checkpoint
-- directory each node keeps its archives in, so a survivor can tell which nodes share a lost node's archives.
ALTER TABLE checkpoints ADD COLUMN archive_dir TEXT;
ALTER TABLE nodes ADD COLUMN checkpoint_dir TEXT;
