package dev.paddock.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.core.ErrorType;
import dev.paddock.core.Ids;
import dev.paddock.core.PaddockException;
import dev.paddock.core.store.ApiKey;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StoreErrorsTest {
    @TempDir Path dir;

    @Test
    void databaseFailuresBecomeInternalErrorsThatQuoteNoValues() throws Exception {
        Path file = dir.resolve("paddock.db");
        try (JdbcStore store = JdbcStore.openSqlite(file)) {
            try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file); Statement s = c.createStatement()) {
                s.execute("DROP TABLE api_keys");
            }
            String hash = "hash-that-must-not-leak";
            ApiKey key = new ApiKey(Ids.newId("key"), "tenant-1", "name", "pdk_", hash, false, TestData.now(), null);

            assertThatThrownBy(() -> store.apiKeys().insert(key))
                    .isInstanceOfSatisfying(PaddockException.class, e -> {
                        assertThat(e.type()).isEqualTo(ErrorType.API);
                        assertThat(e.code()).isEqualTo("internal");
                        assertThat(e.getMessage()).isEqualTo("store operation api_keys.insert failed (SQLITE_ERROR)");
                    });
            assertThatThrownBy(() -> store.apiKeys().findActiveByHash(hash))
                    .isInstanceOfSatisfying(PaddockException.class, e -> assertThat(e.getMessage()).doesNotContain(hash));
            // the store still works for the rest
            store.sandboxes().insert(TestData.sandbox("tenant-1"));
        }
    }
}
