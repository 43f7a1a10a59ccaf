package dev.paddock.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The two dialects' migrations must build the same tables with the same columns: the statements are shared. */
class SchemaParityTest {
    @TempDir Path dir;

    @Test
    void postgresqlMigrationsBuildTheSameTablesAndColumnsAsSqlite() throws SQLException {
        Path file = dir.resolve("paddock.db");
        StoreBackend.SQLITE.open(file).close();
        StoreBackend.POSTGRESQL.open(file).close();
        Map<String, TreeSet<String>> sqlite = columns("jdbc:sqlite:" + file, null, null);
        StoreLocation.Postgres pg = (StoreLocation.Postgres) StoreBackend.POSTGRESQL.location(file);
        Map<String, TreeSet<String>> postgres = columns(pg.jdbcUrl(), pg.user(), pg.password());
        assertThat(sqlite).containsKeys("sandboxes", "ma_session_events", "vault_secrets");
        assertThat(postgres).isEqualTo(sqlite);
    }

    /** Table name → column names, Flyway's own history table left out. */
    private static Map<String, TreeSet<String>> columns(String url, String user, String password) throws SQLException {
        Map<String, TreeSet<String>> out = new TreeMap<>();
        try (Connection c = DriverManager.getConnection(url, user, password);
             ResultSet rs = c.getMetaData().getColumns(null, url.startsWith("jdbc:sqlite") ? null : "public", "%", "%")) {
            while (rs.next()) {
                String table = rs.getString("TABLE_NAME").toLowerCase();
                if (table.startsWith("flyway_") || table.startsWith("sqlite_")) continue;
                out.computeIfAbsent(table, t -> new TreeSet<>()).add(rs.getString("COLUMN_NAME").toLowerCase());
            }
        }
        return out;
    }
}
