package dev.paddock.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.SandboxSpec;
import dev.paddock.core.store.SandboxRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MigrationTest {
    @TempDir Path dir;

    @Test
    void migrationsRunOnceAndReopeningAnExistingDatabaseWorks() throws Exception {
        Path file = dir.resolve("paddock.db");
        for (int i = 0; i < 3; i++) {
            try (JdbcStore store = JdbcStore.openSqlite(file)) {
                store.sandboxes().insert(TestData.sandbox("tenant-1"));
            }
        }

        assertThat(queryLong(file, "SELECT COUNT(*) FROM flyway_schema_history WHERE version IS NOT NULL")).isEqualTo(latestVersion());
        assertThat(queryLong(file, "SELECT COUNT(*) FROM sandboxes")).isEqualTo(3);
    }

    @Test
    void databaseInWalModeWithForeignKeys() throws Exception {
        Path file = dir.resolve("paddock.db");
        JdbcStore.openSqlite(file).close();

        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
             Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("PRAGMA journal_mode")) {
            rs.next();
            assertThat(rs.getString(1)).isEqualToIgnoringCase("wal");
        }
    }

    @Test
    void aDatabaseFromANewerSchemaIsRefusedClearly() throws Exception {
        Path file = dir.resolve("paddock.db");
        JdbcStore.openSqlite(file).close();
        long known = latestVersion();
        long future = known + 1;
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file); Statement s = c.createStatement()) {
            s.executeUpdate("INSERT INTO flyway_schema_history (installed_rank, version, description, type, script, checksum, "
                    + "installed_by, execution_time, success) VALUES (" + (future + 1) + ", '" + future + "', 'future', 'SQL', 'V" + future
                    + "__future.sql', 1, 'newer', 0, 1)");
        }

        assertThatThrownBy(() -> JdbcStore.openSqlite(file))
                .isInstanceOfSatisfying(PaddockException.class, e -> {
                    assertThat(e.code()).isEqualTo("store_schema_too_new");
                    assertThat(e.getMessage()).contains("schema version " + future).contains("newer than " + known);
                });
        assertThat(queryLong(file, "SELECT COUNT(*) FROM flyway_schema_history WHERE version IS NOT NULL")).isEqualTo(future);
    }

    @Test
    void aBrowserSandboxFromBeforeTemplatesKeepsItsKind() throws Exception {
        Path file = dir.resolve("paddock.db");
        SandboxRecord old = withSpec(TestData.sandbox("tenant-1"), Map.of("PADDOCK_BROWSER", "1", "PADDOCK_BROWSER_EVALUATE", "0"));
        SandboxRecord plain = withSpec(TestData.sandbox("tenant-1"), Map.of("PADDOCK_BROWSERISH", "1"));
        try (JdbcStore store = JdbcStore.openSqlite(file)) {
            store.sandboxes().insert(old);
            store.sandboxes().insert(plain);
        }
        // as if the database were written before version 4: the next open runs it (and the versions after it) again
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file); Statement s = c.createStatement()) {
            s.executeUpdate("DELETE FROM flyway_schema_history WHERE version IN ('4', '5', '6', '7', '8')");
            s.executeUpdate("DROP INDEX ma_resources_by_owner_node");
            s.executeUpdate("ALTER TABLE ma_resources DROP COLUMN owner_id");
            s.executeUpdate("ALTER TABLE ma_resources DROP COLUMN owner_node");
            s.executeUpdate("ALTER TABLE ma_resources DROP COLUMN wake_requested");
            s.executeUpdate("ALTER TABLE sandboxes DROP COLUMN node_labels_json");
            s.executeUpdate("DROP TABLE nodes");
            s.executeUpdate("DROP TABLE cluster_settings");
            s.executeUpdate("DROP INDEX sandboxes_by_node");
            s.executeUpdate("ALTER TABLE sandboxes DROP COLUMN node_id");
            s.executeUpdate("ALTER TABLE checkpoints DROP COLUMN archive_dir");
            s.executeUpdate("DROP INDEX checkpoints_by_tenant_name");
            s.executeUpdate("ALTER TABLE checkpoints DROP COLUMN name");
        }
        try (JdbcStore store = JdbcStore.openSqlite(file)) {
            SandboxSpec migrated = store.sandboxes().find(old.id()).orElseThrow().spec();
            assertThat(migrated.template()).isEqualTo("browser");
            assertThat(migrated.env()).containsOnlyKeys("PADDOCK_BROWSER_EVALUATE");
            SandboxSpec untouched = store.sandboxes().find(plain.id()).orElseThrow().spec();
            assertThat(untouched.template()).isNull();
            assertThat(untouched.env()).containsOnlyKeys("PADDOCK_BROWSERISH");
        }
    }

    private static SandboxRecord withSpec(SandboxRecord r, Map<String, String> env) {
        SandboxSpec s = r.spec();
        SandboxSpec spec = new SandboxSpec(s.sandboxId(), s.tenantId(), s.image(), s.writableRootfs(), s.limits(), env, s.network());
        return new SandboxRecord(r.id(), r.tenantId(), r.driver(), r.state(), spec, r.fence(), r.handle(), r.timeout(),
                r.idleSuspendAfter(), r.idleTerminateAfter(), r.createdAt(), r.updatedAt(), r.lastActivityAt(), r.stateReason());
    }

    /** The newest migration shipped (V1, V2, ... numbered without gaps). */
    private static long latestVersion() throws Exception {
        Path dir = Path.of(MigrationTest.class.getResource("/db/migration/sqlite").toURI());
        try (var files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString()).filter(n -> n.matches("V\\d+__.*\\.sql"))
                    .mapToLong(n -> Long.parseLong(n.substring(1, n.indexOf("__")))).max().orElseThrow();
        }
    }

    @Test
    void aFileThatIsNotADatabaseIsRefusedClearly() throws Exception {
        Path file = dir.resolve("paddock.db");
        Files.writeString(file, "this is a text file, not a database ".repeat(20));

        assertThatThrownBy(() -> JdbcStore.openSqlite(file))
                .isInstanceOfSatisfying(PaddockException.class, e -> {
                    assertThat(e.code()).isEqualTo("store_open_failed");
                    assertThat(e.getMessage()).contains("SQLITE_NOTADB");
                });
        assertThat(Files.readString(file)).startsWith("this is a text file");
    }

    @Test
    void aMissingDataDirectoryIsRefusedClearly() {
        assertThatThrownBy(() -> JdbcStore.openSqlite(dir.resolve("missing/paddock.db")))
                .isInstanceOfSatisfying(PaddockException.class, e -> {
                    assertThat(e.code()).isEqualTo("store_open_failed");
                    assertThat(e.getMessage()).contains("does not exist");
                });
    }

    private static long queryLong(Path file, String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
             Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
