package dev.paddock.store;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * How values map to columns. Instants are epoch microseconds (BIGINT): exact for {@link Instant#now()} on Linux,
 * the precision PostgreSQL timestamps also have, and comparable in SQL. Durations are milliseconds. NULL stays null.
 */
final class Columns {
    private Columns() {}

    static long micros(Instant t) {
        return ChronoUnit.MICROS.between(Instant.EPOCH, t);
    }

    static Long microsOrNull(Instant t) {
        return t == null ? null : micros(t);
    }

    static Long millisOrNull(Duration d) {
        return d == null ? null : d.toMillis();
    }

    static Instant getInstant(ResultSet rs, String column) throws SQLException {
        long v = rs.getLong(column);
        return rs.wasNull() ? null : Instant.EPOCH.plus(v, ChronoUnit.MICROS);
    }

    static Duration getDuration(ResultSet rs, String column) throws SQLException {
        long v = rs.getLong(column);
        return rs.wasNull() ? null : Duration.ofMillis(v);
    }
}
