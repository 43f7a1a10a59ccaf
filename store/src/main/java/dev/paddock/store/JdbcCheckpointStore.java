package dev.paddock.store;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.store.CheckpointRecord;
import dev.paddock.core.store.CheckpointStore;
import dev.paddock.core.store.Page;
import dev.paddock.core.store.PageRequest;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/** Checkpoint records (the archives themselves live elsewhere), newest first per sandbox. */
final class JdbcCheckpointStore implements CheckpointStore {
    private static final String COLUMNS = "id, sandbox_id, tenant_id, kind, size_bytes, sha256, created_at, name, archive_dir";

    private final Database db;

    JdbcCheckpointStore(Database db) {
        this.db = db;
    }

    @Override
    public void insert(CheckpointRecord r) {
        Require.present(r, "checkpoint record");
        Require.text(r.id(), "checkpoint id", 64);
        Require.text(r.sandboxId(), "sandbox id", 64);
        Require.text(r.tenantId(), "tenant id", 128);
        Require.text(r.kind(), "kind", 64);
        Require.text(r.sha256(), "sha256", 64);
        Require.present(r.createdAt(), "created_at");
        if (r.name() != null) Require.text(r.name(), "snapshot name", 64);
        if (r.archiveDir() != null) Require.text(r.archiveDir(), "archive directory", 4096);
        if (r.sizeBytes() < 0) throw new PaddockException(ErrorCode.INVALID_SIZE, "checkpoint size must not be negative");
        db.write("checkpoints.insert", c -> {
            String sandboxTenant = Sql.queryOne(c, "SELECT tenant_id FROM sandboxes WHERE id = ?", rs -> rs.getString(1), r.sandboxId())
                    .orElseThrow(() -> PaddockException.notFound("sandbox", r.sandboxId()));
            if (!sandboxTenant.equals(r.tenantId())) {
                throw new PaddockException(ErrorCode.TENANT_MISMATCH,
                        "checkpoint " + r.id() + " must belong to the tenant of sandbox " + r.sandboxId());
            }
            try {
                return Sql.update(c, "INSERT INTO checkpoints (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        r.id(), r.sandboxId(), r.tenantId(), r.kind(), r.sizeBytes(), r.sha256(), Columns.micros(r.createdAt()), r.name(),
                        r.archiveDir());
            } catch (SQLException e) {
                // both dialects name the violated index or its columns (tenant_id, name) in the message
                if (db.dialect().isUniqueViolation(e) && r.name() != null && String.valueOf(e.getMessage()).contains("name")) {
                    throw new PaddockException(ErrorCode.DUPLICATE_NAME, "a snapshot named '" + r.name() + "' already exists; delete it or pick another name");
                }
                if (db.dialect().isUniqueViolation(e)) {
                    throw new PaddockException(ErrorCode.CHECKPOINT_EXISTS, "checkpoint " + r.id() + " already exists");
                }
                throw e;
            }
        });
    }

    @Override
    public Optional<CheckpointRecord> find(String id) {
        if (id == null) return Optional.empty();
        return db.read("checkpoints.find", c ->
                Sql.queryOne(c, "SELECT " + COLUMNS + " FROM checkpoints WHERE id = ?", JdbcCheckpointStore::map, id));
    }

    @Override
    public Page<CheckpointRecord> list(String sandboxId, PageRequest page) {
        Require.present(sandboxId, "sandbox id");
        Require.present(page, "page");
        Keyset keyset = new Keyset("SELECT " + COLUMNS + " FROM checkpoints WHERE sandbox_id = ?", List.of(sandboxId),
                "id", "?", true);
        return db.read("checkpoints.list", c -> {
            if (!Sql.exists(c, JdbcSandboxStore.TABLE, sandboxId)) throw PaddockException.notFound("sandbox", sandboxId);
            return keyset.fetch(c, page, JdbcCheckpointStore::map, CheckpointRecord::id);
        });
    }

    @Override
    public void delete(String id) {
        Require.present(id, "checkpoint id");
        db.write("checkpoints.delete", c -> {
            if (Sql.update(c, "DELETE FROM checkpoints WHERE id = ?", id) == 0) {
                throw PaddockException.notFound("checkpoint", id);
            }
            return null;
        });
    }

    @Override
    public Optional<CheckpointRecord> findByName(String tenantId, String name) {
        if (tenantId == null || name == null) return Optional.empty();
        return db.read("checkpoints.find_by_name", c -> Sql.queryOne(c, "SELECT " + COLUMNS + " FROM checkpoints WHERE tenant_id = ? AND name = ?",
                JdbcCheckpointStore::map, tenantId, name));
    }

    @Override
    public Page<CheckpointRecord> listNamed(String tenantId, PageRequest page) {
        Require.present(tenantId, "tenant id");
        Require.present(page, "page");
        Keyset keyset = new Keyset("SELECT " + COLUMNS + " FROM checkpoints WHERE tenant_id = ? AND name IS NOT NULL", List.of(tenantId),
                "id", "?", true);
        return db.read("checkpoints.list_named", c -> keyset.fetch(c, page, JdbcCheckpointStore::map, CheckpointRecord::id));
    }

    @Override
    public long totalBytes(String tenantId) {
        Require.present(tenantId, "tenant id");
        return db.read("checkpoints.total", c -> Sql.queryOne(c, "SELECT COALESCE(SUM(size_bytes), 0) FROM checkpoints WHERE tenant_id = ?",
                rs -> rs.getLong(1), tenantId).orElse(0L));
    }

    private static CheckpointRecord map(ResultSet rs) throws SQLException {
        return new CheckpointRecord(rs.getString("id"), rs.getString("sandbox_id"), rs.getString("tenant_id"),
                rs.getString("kind"), rs.getLong("size_bytes"), rs.getString("sha256"), Columns.getInstant(rs, "created_at"),
                rs.getString("name"), rs.getString("archive_dir"));
    }
}
