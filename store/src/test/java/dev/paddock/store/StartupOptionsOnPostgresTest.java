package dev.paddock.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.store.testing.TestPostgres;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The store's own session setting (idle_in_transaction_session_timeout, see PostgresDatabase) and the operator's
 * {@code options} in store_url both reach the database; where both name the same setting, the operator's wins.
 */
class StartupOptionsOnPostgresTest {
    @Test
    void theOperatorsStartupOptionsApplyBesideTheStoresOwn() {
        StoreLocation.Postgres db = TestPostgres.freshDatabase();
        String url = TestPostgres.storeUrl(db) + "&options=-c%20statement_timeout%3D4321";
        try (PostgresDatabase store = PostgresDatabase.open((StoreLocation.Postgres) StoreLocation.parse(url, null))) {
            assertThat(settings(store)).containsExactly("4321ms", "10s");
        }
        String overriding = TestPostgres.storeUrl(db) + "&options=-c%20idle_in_transaction_session_timeout%3D30s";
        try (PostgresDatabase store = PostgresDatabase.open((StoreLocation.Postgres) StoreLocation.parse(overriding, null))) {
            assertThat(settings(store)).containsExactly("0", "30s");
        }
    }

    private static List<String> settings(PostgresDatabase store) {
        return store.read("show settings", c -> {
            try (Statement s = c.createStatement()) {
                return List.of(show(s, "statement_timeout"), show(s, "idle_in_transaction_session_timeout"));
            }
        });
    }

    private static String show(Statement s, String name) throws SQLException {
        try (ResultSet r = s.executeQuery("SHOW " + name)) {
            r.next();
            return r.getString(1);
        }
    }
}
