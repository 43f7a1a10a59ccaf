package dev.paddock.store;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.store.ApiKey;
import dev.paddock.core.store.ApiKeyStore;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;

/** API keys. Only the hash the caller computed is stored; a key's secret never reaches this class. */
final class JdbcApiKeyStore implements ApiKeyStore {
    private static final String COLUMNS = "id, tenant_id, name, prefix, secret_hash, admin, created_at, revoked_at";

    private final Database db;
    private final Clock clock;

    JdbcApiKeyStore(Database db, Clock clock) {
        this.db = db;
        this.clock = clock;
    }

    @Override
    public void insert(ApiKey k) {
        Require.present(k, "api key");
        Require.text(k.id(), "api key id", 64);
        Require.text(k.tenantId(), "tenant id", 128);
        Require.present(k.name(), "name");
        Require.present(k.prefix(), "prefix");
        Require.text(k.secretHash(), "secret hash", 256);
        Require.present(k.createdAt(), "created_at");
        db.write("api_keys.insert", c -> {
            try {
                return Sql.update(c, "INSERT INTO api_keys (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        k.id(), k.tenantId(), k.name(), k.prefix(), k.secretHash(), k.admin(),
                        Columns.micros(k.createdAt()), Columns.microsOrNull(k.revokedAt()));
            } catch (SQLException e) {
                if (db.dialect().isUniqueViolation(e)) {
                    // Never echo the hash: it identifies the secret.
                    throw new PaddockException(ErrorCode.API_KEY_EXISTS, "an API key with id " + k.id() + " or the same secret already exists");
                }
                throw e;
            }
        });
    }

    @Override
    public Optional<ApiKey> findActiveByHash(String secretHash) {
        if (secretHash == null) return Optional.empty();
        return db.read("api_keys.find_active", c -> Sql.queryOne(c,
                "SELECT " + COLUMNS + " FROM api_keys WHERE secret_hash = ? AND revoked_at IS NULL", JdbcApiKeyStore::map, secretHash));
    }

    /** A tenant's keys, revoked ones included, newest first. */
    @Override
    public List<ApiKey> list(String tenantId) {
        Require.present(tenantId, "tenant id");
        return db.read("api_keys.list", c -> Sql.query(c,
                "SELECT " + COLUMNS + " FROM api_keys WHERE tenant_id = ? ORDER BY id DESC", JdbcApiKeyStore::map, tenantId));
    }

    @Override
    public List<ApiKey> listAll() {
        return db.read("api_keys.list_all", c -> Sql.query(c,
                "SELECT " + COLUMNS + " FROM api_keys ORDER BY id DESC", JdbcApiKeyStore::map));
    }

    @Override
    public Optional<ApiKey> find(String id) {
        if (id == null) return Optional.empty();
        return db.read("api_keys.find", c -> Sql.queryOne(c,
                "SELECT " + COLUMNS + " FROM api_keys WHERE id = ?", JdbcApiKeyStore::map, id));
    }

    /** Revokes the key; revoking it again keeps the first revocation time. */
    @Override
    public void revoke(String id) {
        Require.present(id, "api key id");
        long now = Columns.micros(clock.instant().truncatedTo(ChronoUnit.MICROS));
        db.write("api_keys.revoke", c -> {
            if (Sql.update(c, "UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", now, id) == 0
                    && !Sql.exists(c, "api_keys", id)) {
                throw PaddockException.notFound("api key", id);
            }
            return null;
        });
    }

    /** Every key ever stored, revoked ones included: a first-run bootstrap must not recur once keys existed. */
    @Override
    public long count() {
        return db.read("api_keys.count", c -> Sql.queryOne(c, "SELECT COUNT(*) FROM api_keys", rs -> rs.getLong(1)).orElse(0L));
    }

    private static ApiKey map(ResultSet rs) throws SQLException {
        return new ApiKey(rs.getString("id"), rs.getString("tenant_id"), rs.getString("name"), rs.getString("prefix"),
                rs.getString("secret_hash"), rs.getBoolean("admin"), Columns.getInstant(rs, "created_at"),
                Columns.getInstant(rs, "revoked_at"));
    }
}
