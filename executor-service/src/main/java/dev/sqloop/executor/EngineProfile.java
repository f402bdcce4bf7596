package dev.sqloop.executor;

import com.zaxxer.hikari.HikariConfig;
import dev.sqloop.common.Dialect;
import dev.sqloop.common.config.ConfigException;
import dev.sqloop.common.datasource.DatasourceConfig;

/**
 * What differs per engine family: how a read-only connection pool is set up, how a query is bounded or
 * only planned, and how its errors read. Adding Hive/Spark means one more profile using hive-jdbc and
 * {@link HiveErrors}; nothing else in the executor changes.
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

    static EngineProfile forDialect(Dialect dialect) {
        if (dialect == Dialect.PRESTO) return new PrestoProfile(); // ahead of the switch: one line to merge with the Hive/Spark profiles
        return switch (dialect) {
            case DUCKDB -> new DuckDbProfile();
            case POSTGRES -> new PostgresProfile();
            case TRINO -> new TrinoProfile();
            case PRESTO, HIVE, SPARKSQL -> throw new ConfigException("dialect " + dialect.wireName()
                    + " has no executor driver in this build (trino, postgres and duckdb do)");
        };
    }

    static int timeoutSeconds(DatasourceConfig ds) {
        return (int) Math.max(1, (ds.queryTimeout().toMillis() + 999) / 1000);
    }
}
