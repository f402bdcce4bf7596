package dev.sqloop.executor;

import com.zaxxer.hikari.HikariConfig;
import dev.sqloop.common.datasource.DatasourceConfig;

/**
 * PrestoDB through PrestoDB's own presto-jdbc ({@code jdbc:presto://host:port/catalog/schema}): trino-jdbc sends
 * only {@code X-Trino-*} headers, which a PrestoDB coordinator does not read. Like Trino, Presto does not enforce
 * {@code setReadOnly(true)}: the server's access control and the executor's {@link ReadOnlyGuard} stop writes.
 * Presto's error codes are the StandardErrorCode numbers Trino inherited ({@code COLUMN_NOT_FOUND} 47,
 * {@code PERMISSION_DENIED} 4, …) and its messages read {@code Query failed (#id): …}, so {@link TrinoErrors}
 * classifies them. Not wrapped in a LIMIT subquery, for the same reason as {@link TrinoProfile}.
 */
final class PrestoProfile implements EngineProfile {
    private static final ErrorClassifier ERRORS = new TrinoErrors();

    @Override
    public void configure(HikariConfig pool, DatasourceConfig ds) {
        pool.setJdbcUrl(ds.jdbcUrl());
        pool.setDriverClassName("com.facebook.presto.jdbc.PrestoDriver");
        pool.setUsername(ds.user() == null ? "sqloop" : ds.user());
        // presto-jdbc, like trino-jdbc, refuses a password without TLS: an empty one is not passed at all
        if (ds.password() != null && !ds.password().isEmpty()) pool.setPassword(ds.password());
        ds.properties().forEach(pool::addDataSourceProperty);
        pool.addDataSourceProperty("applicationNamePrefix", "sqloop-executor");
        pool.addDataSourceProperty("sessionProperties",
                "query_max_run_time:" + (EngineProfile.timeoutSeconds(ds) + 1) + "s");
    }

    @Override
    public String limited(String query, int limit) {
        return query;
    }

    @Override
    public String explain(String query) {
        return "EXPLAIN (TYPE VALIDATE) " + query;
    }

    @Override
    public ErrorClassifier errors() {
        return ERRORS;
    }
}
