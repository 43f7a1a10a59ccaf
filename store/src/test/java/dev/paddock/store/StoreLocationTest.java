package dev.paddock.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.core.PaddockException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class StoreLocationTest {
    static final Path DEFAULT = Path.of("/var/lib/paddock/paddock.db");

    @Test
    void noSettingIsTheDataDirectorysSqliteFile() {
        assertThat(StoreLocation.parse(null, DEFAULT)).isEqualTo(new StoreLocation.Sqlite(DEFAULT));
        assertThat(StoreLocation.parse("  ", DEFAULT)).isEqualTo(new StoreLocation.Sqlite(DEFAULT));
        assertThat(StoreLocation.parse("sqlite:/srv/p.db", DEFAULT)).isEqualTo(new StoreLocation.Sqlite(Path.of("/srv/p.db")));
    }

    @Test
    void aLibpqUrlBecomesAJdbcUrlWithTheCredentialsKeptApart() {
        StoreLocation.Postgres pg = (StoreLocation.Postgres) StoreLocation.parse(
                "postgresql://paddock:p%40ss%3Aword@db.internal:6432/paddock?sslmode=require", DEFAULT);
        assertThat(pg.jdbcUrl()).isEqualTo("jdbc:postgresql://db.internal:6432/paddock?sslmode=require");
        assertThat(pg.user()).isEqualTo("paddock");
        assertThat(pg.password()).isEqualTo("p@ss:word");
        assertThat(pg.toString()).doesNotContain("p@ss:word");
        assertThat(pg.display()).doesNotContain("p@ss:word");
    }

    @Test
    void aJdbcUrlMayCarryUserAndPasswordAsParameters() {
        StoreLocation.Postgres pg = (StoreLocation.Postgres) StoreLocation.parse(
                "jdbc:postgresql://127.0.0.1/paddock?user=u&password=s%26cret&connectTimeout=5", DEFAULT);
        assertThat(pg.jdbcUrl()).isEqualTo("jdbc:postgresql://127.0.0.1/paddock?connectTimeout=5");
        assertThat(pg.user()).isEqualTo("u");
        assertThat(pg.password()).isEqualTo("s&cret");
    }

    @Test
    void startupOptionsAreKeptApartSoTheStoreCanAddItsOwnAfterThem() {
        StoreLocation.Postgres pg = (StoreLocation.Postgres) StoreLocation.parse(
                "postgresql://h/paddock?options=-c%20statement_timeout%3D5s&sslmode=require", DEFAULT);
        assertThat(pg.jdbcUrl()).isEqualTo("jdbc:postgresql://h/paddock?sslmode=require");
        assertThat(pg.options()).isEqualTo("-c statement_timeout=5s");
        assertThat(PostgresDatabase.startupOptions(pg.options()))
                .isEqualTo("-c idle_in_transaction_session_timeout=10000 -c statement_timeout=5s");
        assertThat(PostgresDatabase.startupOptions(null)).isEqualTo("-c idle_in_transaction_session_timeout=10000");
    }

    @Test
    void whatIsNoStoreIsRefusedWithAReason() {
        assertThatThrownBy(() -> StoreLocation.parse("mysql://h/db", DEFAULT)).isInstanceOf(PaddockException.class)
                .hasMessageContaining("must start with postgresql://");
        assertThatThrownBy(() -> StoreLocation.parse("postgresql://host", DEFAULT)).hasMessageContaining("names no database");
        assertThatThrownBy(() -> StoreLocation.parse("postgresql:///paddock", DEFAULT)).hasMessageContaining("names no host");
        assertThatThrownBy(() -> StoreLocation.parse("postgresql://h/db?x=%zz", DEFAULT)).isInstanceOf(PaddockException.class);
    }
}
