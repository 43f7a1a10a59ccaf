package dev.paddock.store;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Objects;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.MigrationInfoService;
import org.flywaydb.core.api.MigrationState;
import org.flywaydb.core.api.MigrationVersion;
import org.flywaydb.core.api.output.MigrateResult;
import org.flywaydb.core.api.pattern.ValidatePattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings a database schema up to date with Flyway. A database written by a newer Paddock (a schema version this
 * build does not know) is refused rather than used: its tables may mean something this code cannot honour.
 */
final class Migrations {
    private static final Logger LOG = LoggerFactory.getLogger(Migrations.class);

    private Migrations() {}

    static void run(DataSource dataSource, Dialect dialect, String databaseName) {
        Flyway flyway = Flyway.configure()
                .dataSource(dataSource)
                .locations(dialect.migrationLocation())
                // Flyway ignores applied migrations it does not know ("future") by default; we fail instead.
                .ignoreMigrationPatterns(new ValidatePattern[0])
                .validateMigrationNaming(true)
                .cleanDisabled(true)
                .load();
        try {
            refuseFutureSchema(flyway.info(), databaseName);
            MigrateResult result = flyway.migrate();
            if (result.migrationsExecuted > 0) {
                LOG.info("database {} migrated to schema version {}", databaseName, result.targetSchemaVersion);
            }
        } catch (FlywayException e) {
            // a database error (connection lost, schema lock not granted, no right to change the schema) is not a
            // damaged schema: a backup would not help
            SQLException sql = sqlCause(e);
            String why = firstLine(e.getMessage()) + (sql == null ? "" : " (" + firstLine(sql.getMessage()) + ")");
            String hint = sql != null ? "check that the database is reachable and that its user may change the schema, then start again"
                    : "restore the file from a backup or use the Paddock version that wrote it";
            throw new PaddockException(ErrorCode.STORE_MIGRATION_FAILED,
                    "cannot bring database " + databaseName + " to the current schema: " + why + "; " + hint, e);
        }
    }

    private static void refuseFutureSchema(MigrationInfoService info, String databaseName) {
        boolean future = Arrays.stream(info.applied())
                .anyMatch(m -> m.getState() == MigrationState.FUTURE_SUCCESS || m.getState() == MigrationState.FUTURE_FAILED);
        if (!future) return;
        String applied = versionText(info.current());
        String known = Arrays.stream(info.all())
                .filter(m -> m.getState() != MigrationState.FUTURE_SUCCESS && m.getState() != MigrationState.FUTURE_FAILED)
                .map(MigrationInfo::getVersion)
                .filter(Objects::nonNull)
                .max(Comparator.naturalOrder())
                .map(MigrationVersion::getVersion)
                .orElse("none");
        throw new PaddockException(ErrorCode.STORE_SCHEMA_TOO_NEW,
                "database " + databaseName + " has schema version " + applied + ", newer than " + known
                        + ", the newest this Paddock knows; run the Paddock version that wrote it or a newer one");
    }

    private static String versionText(MigrationInfo m) {
        return m == null || m.getVersion() == null ? "unknown" : m.getVersion().getVersion();
    }

    private static SQLException sqlCause(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s) return s;
        }
        return null;
    }

    private static String firstLine(String message) {
        if (message == null) return "unknown error";
        int nl = message.indexOf('\n');
        return (nl < 0 ? message : message.substring(0, nl)).strip();
    }
}
