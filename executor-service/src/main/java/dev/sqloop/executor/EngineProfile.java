package dev.sqloop.executor;

import com.zaxxer.hikari.HikariConfig;
import dev.sqloop.common.Dialect;
import dev.sqloop.common.datasource.DatasourceConfig;

/**
 * What differs per engine family: how a read-only connection pool is set up, how a query is bounded or
 * only planned, and how its errors read. Hive and Spark share one HiveServer2 profile; Trino and PrestoDB
 * share one profile with a driver each (trino-jdbc cannot talk to PrestoDB).
 */
interface EngineProfile {

    /** Fills the pool settings for a read-only connection to {@code ds} (URL, credentials, driver properties). */
    void configure(HikariConfig pool, DatasourceConfig ds);

    /** As {@link #configure(HikariConfig, DatasourceConfig)}, leaving out optional settings the server refused. */
    default void configure(HikariConfig pool, DatasourceConfig ds, java.util.Set<String> without) {
        configure(pool, ds);
    }

    /** The optional session setting a connection failure says the role may not set, or null ({@link #configure}). */
    default String refusedOptionalSetting(java.sql.SQLException failure) {
        return null;
    }

    /** What an administrator runs so the role may set {@code setting}. */
    default String howToGrant(String setting) {
        return "";
    }

    /**
     * Null when a new session reads query text exactly as sqloop's checks do, else what is wrong ("substitutes
     * ${…} variables …"): asked once per physical connection, on the connection itself, before its first query.
     */
    default String sessionProblem(java.sql.Connection c) throws java.sql.SQLException {
        return null;
    }

    ErrorClassifier errors();

    /** The query bounded to {@code limit} rows. Newlines keep a trailing {@code --} comment from eating the wrapper. */
    default String limited(String query, int limit) {
        return "SELECT * FROM (\n" + query + "\n) AS q LIMIT " + limit;
    }

    /** A statement that plans {@code query} without running it, or null to plan through prepared-statement metadata. */
    default String explain(String query) {
        return null;
    }

    /**
     * Makes a pooled connection clean after a query used it, before it goes back to the pool: nothing the query left in
     * the session (settings, temporary objects, advisory locks, prepared statements) may outlive it. A connection whose
     * reset fails is evicted. The default does nothing: the guard refuses every statement that could leave such state on
     * engines without a reset.
     */
    default void resetSession(java.sql.Connection c) throws java.sql.SQLException {
    }

    static EngineProfile forDialect(Dialect dialect) {
        return switch (dialect) {
            case DUCKDB -> new DuckDbProfile();
            case POSTGRES -> new PostgresProfile();
            case TRINO, PRESTO -> new TrinoProfile(dialect);
            case HIVE, SPARKSQL -> new HiveServer2Profile(dialect);
            case CLICKHOUSE -> new ClickHouseProfile();
        };
    }

    static int timeoutSeconds(DatasourceConfig ds) {
        return (int) Math.max(1, (ds.queryTimeout().toMillis() + 999) / 1000);
    }
}
