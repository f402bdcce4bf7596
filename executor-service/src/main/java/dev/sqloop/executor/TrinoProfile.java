package dev.sqloop.executor;

import com.zaxxer.hikari.HikariConfig;
import dev.sqloop.common.datasource.DatasourceConfig;

/**
 * Trino through trino-jdbc. Trino does not enforce {@code setReadOnly(true)}: writes must be blocked by the
 * server's access control or the user's grants; the executor's {@link ReadOnlyGuard} is the client-side
 * part. {@code query_max_run_time} ends the query on the server even if the client disappears.
 */
final class TrinoProfile implements EngineProfile {
    private static final ErrorClassifier ERRORS = new TrinoErrors();

    @Override
    public void configure(HikariConfig pool, DatasourceConfig ds) {
        pool.setJdbcUrl(ds.jdbcUrl());
        pool.setDriverClassName("io.trino.jdbc.TrinoDriver");
        pool.setUsername(ds.user() == null ? "sqloop" : ds.user());
        // trino-jdbc refuses a password without TLS, so an empty one is not passed at all
        if (ds.password() != null && !ds.password().isEmpty()) pool.setPassword(ds.password());
        ds.properties().forEach(pool::addDataSourceProperty);
        pool.addDataSourceProperty("source", "sqloop-executor");
        pool.addDataSourceProperty("sessionProperties",
                "query_max_run_time:" + (EngineProfile.timeoutSeconds(ds) + 1) + "s");
    }

    /**
     * Not wrapped: Trino drops an ORDER BY inside a subquery (it has no meaning there in standard SQL), so
     * {@code SELECT * FROM (… ORDER BY x) q LIMIT n} returns arbitrary rows. The row limit is the statement's
     * {@code setMaxRows}: trino-jdbc stops reading there and closing the result set cancels the query.
     */
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
