package dev.paddock.store;

import dev.paddock.store.testing.TestPostgres;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The databases the store's tests run on; a test class annotated {@code @ParameterizedClass @EnumSource(StoreBackend.class)}
 * runs once on each. A test names its database by the SQLite file it would use: on PostgreSQL the same file name means
 * the same database (made fresh by {@link TestPostgres} the first time), so reopening
 * a store reopens the same data on either backend.
 */
enum StoreBackend {
    SQLITE,
    POSTGRESQL;

    private static final Map<Path, StoreLocation> DATABASES = new ConcurrentHashMap<>();

    JdbcStore open(Path sqliteFile) {
        return open(sqliteFile, Clock.systemUTC());
    }

    JdbcStore open(Path sqliteFile, Clock clock) {
        return JdbcStore.open(location(sqliteFile), clock);
    }

    StoreLocation location(Path sqliteFile) {
        if (this == SQLITE) return new StoreLocation.Sqlite(sqliteFile);
        return DATABASES.computeIfAbsent(sqliteFile.toAbsolutePath(), f -> TestPostgres.freshDatabase());
    }

    /**
     * Everything the database holds of {@code table} as text, to look for what must not be there: on SQLite the whole
     * file (every page, free ones too), on PostgreSQL every column of every row, bytes read as Latin-1.
     */
    String rawContent(Path sqliteFile, String table) throws IOException, SQLException {
        if (this == SQLITE) return new String(Files.readAllBytes(sqliteFile), StandardCharsets.ISO_8859_1);
        StoreLocation.Postgres db = (StoreLocation.Postgres) location(sqliteFile);
        StringBuilder out = new StringBuilder();
        try (Connection c = DriverManager.getConnection(db.jdbcUrl(), db.user(), db.password());
             Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT * FROM " + table)) {
            while (rs.next()) {
                for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                    byte[] bytes = rs.getBytes(i);
                    if (bytes != null) out.append(new String(bytes, StandardCharsets.ISO_8859_1)).append('\n');
                }
            }
        }
        return out.toString();
    }

}
