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
     * Makes a pooled connection clean before a query uses it: nothing a previous query left in the session
     * (settings, temporary objects, advisory locks, prepared statements) may reach the next one. The default
     * does nothing: the guard refuses every statement that could leave such state on engines without a reset.
     */
    default void resetSession(java.sql.Connection c) throws java.sql.SQLException {
    }

    static EngineProfile forDialect(Dialect dialect) {
        return switch (dialect) {
            case DUCKDB -> new DuckDbProfile();
            case POSTGRES -> new PostgresProfile();
            case TRINO, PRESTO -> new TrinoProfile(dialect);
            case HIVE, SPARKSQL -> new HiveServer2Profile(dialect);
        };
    }

    static int timeoutSeconds(DatasourceConfig ds) {
        return (int) Math.max(1, (ds.queryTimeout().toMillis() + 999) / 1000);
    }
}
