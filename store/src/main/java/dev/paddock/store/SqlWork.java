package dev.paddock.store;

import java.sql.Connection;
import java.sql.SQLException;

/** A unit of work run inside one transaction on a connection the {@link Database} lends. */
@FunctionalInterface
interface SqlWork<T> {
    T run(Connection connection) throws SQLException;
}
