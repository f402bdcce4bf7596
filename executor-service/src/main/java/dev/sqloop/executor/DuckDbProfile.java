package dev.sqloop.executor;

import com.zaxxer.hikari.HikariConfig;
import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.datasource.DuckDbReadOnly;
import dev.sqloop.common.datasource.ReadOnlyJdbc;

/**
 * The embedded default: a DuckDB file opened read-only with external access disabled and configuration
 * locked ({@link DuckDbReadOnly}).
 */
final class DuckDbProfile implements EngineProfile {
    private static final ErrorClassifier ERRORS = new DuckDbErrors();

    @Override
    public void configure(HikariConfig pool, DatasourceConfig ds) {
        pool.setJdbcUrl(ds.jdbcUrl());
        pool.setDriverClassName("org.duckdb.DuckDBDriver");
        // the shared set: another component opening this file in the same JVM must match it exactly
        ReadOnlyJdbc.driverProperties(ds).forEach(pool::addDataSourceProperty);
        // DuckDB's isValid is not a round trip; a query proves the database is still open
        pool.setConnectionTestQuery("SELECT 1");
    }

    @Override
    public ErrorClassifier errors() {
        return ERRORS;
    }
}
