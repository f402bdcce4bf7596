package dev.sqloop.executor;

import com.zaxxer.hikari.HikariConfig;
import dev.sqloop.common.datasource.DatasourceConfig;

/**
 * The embedded default: a DuckDB file opened read-only. {@code duckdb.read_only} alone still lets a query
 * {@code COPY … TO} a file or {@code read_csv} any local file, so external access is disabled too, and the
 * configuration is locked so a query cannot {@code SET} it back.
 */
final class DuckDbProfile implements EngineProfile {
    private static final ErrorClassifier ERRORS = new DuckDbErrors();

    @Override
    public void configure(HikariConfig pool, DatasourceConfig ds) {
        pool.setJdbcUrl(ds.jdbcUrl());
        pool.setDriverClassName("org.duckdb.DuckDBDriver");
        ds.properties().forEach(pool::addDataSourceProperty);
        pool.addDataSourceProperty("duckdb.read_only", "true");
        pool.addDataSourceProperty("enable_external_access", "false");
        pool.addDataSourceProperty("autoinstall_known_extensions", "false");
        pool.addDataSourceProperty("autoload_known_extensions", "false");
        pool.addDataSourceProperty("lock_configuration", "true");
        // DuckDB's isValid is not a round trip; a query proves the database is still open
        pool.setConnectionTestQuery("SELECT 1");
    }

    @Override
    public ErrorClassifier errors() {
        return ERRORS;
    }
}
