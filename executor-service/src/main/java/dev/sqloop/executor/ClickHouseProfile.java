package dev.sqloop.executor;

import com.zaxxer.hikari.HikariConfig;
import dev.sqloop.common.datasource.DatasourceConfig;

/**
 * A ClickHouse server over {@code jdbc:clickhouse://} (jdbc-v2, HTTP). Every request carries the datasource's caps as
 * server settings ({@link ClickHouseSettings}) with {@code readonly=2}: over HTTP the settings come with each query,
 * and {@code readonly=1} would refuse the client's own. The user's server-side profile should say {@code readonly=1}
 * or add constraints on the caps (README); chDB in-process ({@code jdbc:chdb:}) runs with {@code readonly=1}.
 */
final class ClickHouseProfile implements EngineProfile {
    private static final ErrorClassifier ERRORS = new ClickHouseErrors();
    /** jdbc-v2 passes a property with this prefix to the server as a query setting. */
    static final String SETTING_PREFIX = "clickhouse_setting_";

    @Override
    public void configure(HikariConfig pool, DatasourceConfig ds) {
        pool.setJdbcUrl(ds.jdbcUrl());
        pool.setDriverClassName("com.clickhouse.jdbc.Driver");
        if (ds.user() != null) pool.setUsername(ds.user());
        if (ds.password() != null) pool.setPassword(ds.password());
        ds.properties().forEach(pool::addDataSourceProperty);
        ClickHouseSettings.of(ds, 2).forEach((k, v) -> pool.addDataSourceProperty(SETTING_PREFIX + k, v));
        // a frozen server must not hold a worker past the query's own limit
        pool.addDataSourceProperty("socket_timeout", Long.toString((EngineProfile.timeoutSeconds(ds) + 15) * 1000L));
        pool.setConnectionTestQuery("SELECT 1");
    }

    /** Plans and type-checks without reading data (the analyzer resolves every name). */
    @Override
    public String explain(String query) {
        return "EXPLAIN PLAN\n" + query;
    }

    @Override
    public ErrorClassifier errors() {
        return ERRORS;
    }
}
