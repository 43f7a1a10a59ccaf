/**
 * The persistence port ({@link dev.paddock.core.store.Store}) on JDBC. Entry point:
 * {@link dev.paddock.store.JdbcStore#openSqlite(java.nio.file.Path)}.
 *
 * <p>Layout: {@code JdbcStore} wires one {@code Jdbc*Store} per record type onto a {@code Database} (connections and
 * transactions; {@code SqliteDatabase} today) and a {@code Dialect} (the few SQL differences). The statements are
 * standard SQL shared by all databases; migrations live per database under {@code db/migration/<dialect>}.
 * A PostgreSQL backend adds a {@code Database} over a connection pool, a {@code Dialect} and its migrations.
 */
package dev.paddock.store;
