package dev.sqloop.executor;

import com.zaxxer.hikari.HikariConfig;
import dev.sqloop.common.Dialect;
import dev.sqloop.common.datasource.DatasourceConfig;

/**
 * Trino through trino-jdbc ({@code trino}) and PrestoDB through PrestoDB's own presto-jdbc ({@code presto},
 * {@code jdbc:presto://host:port/catalog/schema}): trino-jdbc sends only {@code X-Trino-*} headers, which a PrestoDB
 * coordinator does not read. The two drivers differ only in their class and in the property that names the
 * client; the servers share the rest. Presto's error codes are the StandardErrorCode numbers Trino inherited
 * ({@code COLUMN_NOT_FOUND} 47, {@code PERMISSION_DENIED} 4, …) and its messages read {@code Query failed (#id): …},
 * so {@link TrinoErrors} classifies both.
 *
 * <p>Neither enforces {@code setReadOnly(true)}: writes must be blocked by the server's access control or the
 * user's grants; the executor's {@link ReadOnlyGuard} is the client-side part. {@code query_max_run_time} ends the
 * query on the server even if the client disappears.
 */
final class TrinoProfile implements EngineProfile {
    private static final ErrorClassifier ERRORS = new TrinoErrors();

    private final String driverClass;
    /** trino-jdbc names the client by {@code source}, presto-jdbc by {@code applicationNamePrefix}. */
    private final String clientNameProperty;

    TrinoProfile(Dialect dialect) {
        switch (dialect) {
            case TRINO -> {
                driverClass = "io.trino.jdbc.TrinoDriver";
                clientNameProperty = "source";
            }
            case PRESTO -> {
                driverClass = "com.facebook.presto.jdbc.PrestoDriver";
                clientNameProperty = "applicationNamePrefix";
            }
            default -> throw new IllegalArgumentException(dialect + " is neither Trino nor Presto");
        }
    }

    @Override
    public void configure(HikariConfig pool, DatasourceConfig ds) {
        pool.setJdbcUrl(ds.jdbcUrl());
        pool.setDriverClassName(driverClass);
        pool.setUsername(ds.user() == null ? "sqloop" : ds.user());
        // trino-jdbc and presto-jdbc refuse a password without TLS, so an empty one is not passed at all
        if (ds.password() != null && !ds.password().isEmpty()) pool.setPassword(ds.password());
        ds.properties().forEach(pool::addDataSourceProperty);
        pool.addDataSourceProperty(clientNameProperty, "sqloop-executor");
        pool.addDataSourceProperty("sessionProperties",
                "query_max_run_time:" + (EngineProfile.timeoutSeconds(ds) + 1) + "s");
    }

    /**
     * Not wrapped: Trino (and Presto) drop an ORDER BY inside a subquery (it has no meaning there in standard SQL),
     * so {@code SELECT * FROM (… ORDER BY x) q LIMIT n} returns arbitrary rows. The row limit is the statement's
     * {@code setMaxRows}: the driver stops reading there and closing the result set cancels the query.
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
