package dev.paddock.store;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.agents.Resource;
import dev.paddock.core.agents.ResourceFilter;
import dev.paddock.core.agents.ResourceStore;
import dev.paddock.core.agents.SessionMovedException;
import dev.paddock.core.store.Page;
import dev.paddock.core.store.PageRequest;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/** Managed Agents resources as JSON documents in {@code ma_resources}. */
final class JdbcResourceStore implements ResourceStore {
    private static final String COLUMNS = "kind, id, tenant_id, unique_key, state, parent_id, ref_id, aux, version, revision, "
            + "created_at, updated_at, archived_at, body_json";

    private final Database db;

    JdbcResourceStore(Database db) {
        this.db = db;
    }

    @Override
    public void insert(Resource r) {
        Require.present(r, "resource");
        String json = Json.write(r.body(), "resource_body", ErrorCode.INVALID_RESOURCE_BODY);
        db.write("resources.insert", c -> {
            requireUniqueKeyFree(c, r);
            Sql.update(c, "INSERT INTO ma_resources (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    r.kind(), r.id(), r.tenantId(), r.uniqueKey(), r.state(), r.parentId(), r.refId(), r.aux(), r.version(),
                    r.revision(), Columns.micros(r.createdAt()), Columns.micros(r.updatedAt()), Columns.microsOrNull(r.archivedAt()), json);
            return null;
        });
    }

    @Override
    public Optional<Resource> find(String kind, String tenantId, String id) {
        return db.read("resources.find", c -> Sql.queryOne(c,
                "SELECT " + COLUMNS + " FROM ma_resources WHERE kind = ? AND tenant_id = ? AND id = ?",
                JdbcResourceStore::map, kind, tenantId, id));
    }

    @Override
    public Optional<Resource> findByUniqueKey(String kind, String uniqueKey) {
        return db.read("resources.find_by_key", c -> Sql.queryOne(c,
                "SELECT " + COLUMNS + " FROM ma_resources WHERE kind = ? AND unique_key = ?",
                JdbcResourceStore::map, kind, uniqueKey));
    }

    @Override
    public Resource update(Resource r) {
        return update(r, null);
    }

    @Override
    public Resource updateAsOwner(String ownerId, Resource r) {
        Require.present(ownerId, "owner id");
        return update(r, ownerId);
    }

    private Resource update(Resource r, String ownerId) {
        String json = Json.write(r.body(), "resource_body", ErrorCode.INVALID_RESOURCE_BODY);
        return db.write("resources.update", c -> {
            requireUniqueKeyFree(c, r);
            List<Object> params = new ArrayList<>(Arrays.asList(r.uniqueKey(), r.state(), r.parentId(), r.refId(), r.aux(), r.version(),
                    r.revision() + 1, Columns.micros(r.updatedAt()), Columns.microsOrNull(r.archivedAt()), json, r.kind(), r.tenantId(), r.id(),
                    r.revision()));
            if (ownerId != null) params.add(ownerId);
            int n = Sql.update(c, "UPDATE ma_resources SET unique_key = ?, state = ?, parent_id = ?, ref_id = ?, aux = ?, "
                            + "version = ?, revision = ?, updated_at = ?, archived_at = ?, body_json = ? "
                            + "WHERE kind = ? AND tenant_id = ? AND id = ? AND revision = ?" + (ownerId == null ? "" : " AND owner_id = ?"),
                    params.toArray());
            if (n == 0) {
                if (ownerId != null && !JdbcSessionOwners.owns(c, r.id(), ownerId)) throw new SessionMovedException(r.id(), ownerId);
                if (!Sql.queryOne(c, "SELECT 1 FROM ma_resources WHERE kind = ? AND tenant_id = ? AND id = ?", rs -> true,
                        r.kind(), r.tenantId(), r.id()).isPresent()) {
                    throw PaddockException.notFound(r.kind(), r.id());
                }
                throw new PaddockException(ErrorCode.CONCURRENT_UPDATE, r.kind() + " " + r.id() + " was changed at the same time; retry");
            }
            return Sql.queryOne(c, "SELECT " + COLUMNS + " FROM ma_resources WHERE kind = ? AND id = ?",
                    JdbcResourceStore::map, r.kind(), r.id()).orElseThrow();
        });
    }

    @Override
    public Page<Resource> list(String kind, String tenantId, ResourceFilter f, PageRequest page) {
        StringBuilder where = new StringBuilder("SELECT " + COLUMNS + " FROM ma_resources WHERE kind = ? AND tenant_id = ?");
        List<Object> params = new ArrayList<>(List.of(kind, tenantId));
        if (!f.includeArchived()) where.append(" AND archived_at IS NULL");
        if (f.parentId() != null) { where.append(" AND parent_id = ?"); params.add(f.parentId()); }
        if (f.refId() != null) { where.append(" AND ref_id = ?"); params.add(f.refId()); }
        if (!f.states().isEmpty()) {
            where.append(" AND state IN (").append(String.join(", ", Collections.nCopies(f.states().size(), "?"))).append(")");
            params.addAll(f.states());
        }
        Keyset keyset = new Keyset(where.toString(), params, "id", "?", f.newestFirst());
        return db.read("resources.list", c -> keyset.fetch(c, page, JdbcResourceStore::map, Resource::id));
    }

    @Override
    public boolean delete(String kind, String tenantId, String id) {
        return db.write("resources.delete", c -> {
            int n = Sql.update(c, "DELETE FROM ma_resources WHERE kind = ? AND tenant_id = ? AND id = ?", kind, tenantId, id);
            if (n > 0 && Resource.SESSION.equals(kind)) {
                Sql.update(c, "DELETE FROM ma_session_events WHERE session_id = ?", id);
                Sql.update(c, "DELETE FROM ma_work WHERE session_id = ?", id);
            }
            return n > 0;
        });
    }

    /** Checked inside the writing transaction: SQLite has one writer, so nothing can slip in between. */
    private static void requireUniqueKeyFree(Connection c, Resource r) throws SQLException {
        if (r.uniqueKey() == null) return;
        boolean taken = Sql.queryOne(c, "SELECT 1 FROM ma_resources WHERE kind = ? AND tenant_id = ? AND unique_key = ? AND id <> ?",
                rs -> true, r.kind(), r.tenantId(), r.uniqueKey(), r.id()).isPresent();
        if (taken) {
            throw new PaddockException(ErrorCode.DUPLICATE_NAME, "an " + r.kind().replace('_', ' ') + " with this name already exists; choose another name");
        }
    }

    private static Resource map(ResultSet rs) throws SQLException {
        return new Resource(rs.getString("kind"), rs.getString("id"), rs.getString("tenant_id"), rs.getString("unique_key"),
                rs.getString("state"), rs.getString("parent_id"), rs.getString("ref_id"), rs.getString("aux"),
                rs.getLong("version"), rs.getLong("revision"), Columns.getInstant(rs, "created_at"),
                Columns.getInstant(rs, "updated_at"), Columns.getInstant(rs, "archived_at"),
                Json.readMap(rs.getString("body_json"), "resource_body"));
    }
}
