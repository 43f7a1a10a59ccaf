package dev.paddock.store;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.egress.SecretRepository;
import dev.paddock.core.egress.StoredSecret;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/** The vault's secrets in table {@code vault_secrets}: nonce and ciphertext only, every lookup scoped to a tenant. */
final class JdbcSecretRepository implements SecretRepository {
    private static final String COLUMNS = "tenant_id, id, name, nonce, ciphertext, created_at, updated_at, version";

    private final Database db;

    JdbcSecretRepository(Database db) {
        this.db = db;
    }

    @Override
    public void put(StoredSecret s) {
        Require.present(s, "secret");
        Require.text(s.tenantId(), "tenant id", 128);
        Require.text(s.id(), "secret id", 64);
        Require.text(s.name(), "secret name", 128);
        db.write("vault_secrets.put", c -> {
            try {
                int updated = Sql.update(c, "UPDATE vault_secrets SET name = ?, nonce = ?, ciphertext = ?, created_at = ?, updated_at = ?, version = ? "
                                + "WHERE tenant_id = ? AND id = ?", s.name(), s.nonce(), s.ciphertext(), Columns.micros(s.createdAt()),
                        Columns.micros(s.updatedAt()), s.version(), s.tenantId(), s.id());
                if (updated == 0) {
                    Sql.update(c, "INSERT INTO vault_secrets (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?)", s.tenantId(), s.id(), s.name(),
                            s.nonce(), s.ciphertext(), Columns.micros(s.createdAt()), Columns.micros(s.updatedAt()), s.version());
                }
                return null;
            } catch (SQLException e) {
                if (db.dialect().isUniqueViolation(e)) {
                    throw new PaddockException(ErrorCode.SECRET_NAME_TAKEN, "a secret named '" + s.name() + "' already exists; rotate it or pick another name");
                }
                throw e;
            }
        });
    }

    @Override
    public Optional<StoredSecret> get(String tenantId, String id) {
        if (tenantId == null || id == null) return Optional.empty();
        return db.read("vault_secrets.get", c -> Sql.queryOne(c,
                "SELECT " + COLUMNS + " FROM vault_secrets WHERE tenant_id = ? AND id = ?", JdbcSecretRepository::map, tenantId, id));
    }

    @Override
    public List<StoredSecret> list(String tenantId) {
        Require.present(tenantId, "tenant id");
        return db.read("vault_secrets.list", c -> Sql.query(c,
                "SELECT " + COLUMNS + " FROM vault_secrets WHERE tenant_id = ? ORDER BY id", JdbcSecretRepository::map, tenantId));
    }

    @Override
    public boolean delete(String tenantId, String id) {
        if (tenantId == null || id == null) return false;
        return db.write("vault_secrets.delete", c -> Sql.update(c, "DELETE FROM vault_secrets WHERE tenant_id = ? AND id = ?", tenantId, id) > 0);
    }

    private static StoredSecret map(ResultSet rs) throws SQLException {
        return new StoredSecret(rs.getString("id"), rs.getString("tenant_id"), rs.getString("name"), rs.getBytes("nonce"),
                rs.getBytes("ciphertext"), Columns.getInstant(rs, "created_at"), Columns.getInstant(rs, "updated_at"), rs.getInt("version"));
    }
}
