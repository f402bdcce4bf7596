package dev.sqloop.executor;

import com.zaxxer.hikari.HikariConfig;
import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.datasource.ReadOnlyJdbc;
import java.util.Map;

/**
 * PostgreSQL through pgjdbc. The role should itself be read-only (SELECT grants only); on top of that every
 * session starts with {@code default_transaction_read_only=on}, pgjdbc enforces read-only even in
 * autocommit mode, and the server's {@code statement_timeout} backs up the driver's query timeout.
 */
final class PostgresProfile implements EngineProfile {
    private static final ErrorClassifier ERRORS = new PostgresErrors();

    @Override
    public void configure(HikariConfig pool, DatasourceConfig ds) {
        pool.setJdbcUrl(ds.jdbcUrl());
        pool.setDriverClassName("org.postgresql.Driver");
        if (ds.user() != null) pool.setUsername(ds.user());
        if (ds.password() != null) pool.setPassword(ds.password());
        long timeoutMs = ds.queryTimeout().toMillis();
        long connectSeconds = Math.max(1, ds.connectTimeout().toSeconds());
        // read-only settings shared with every component (ReadOnlyJdbc); the server cancels one second after the
        // driver would, so the driver's TIMEOUT normally wins
        Map<String, String> props = ReadOnlyJdbc.driverProperties(ds);
        props.merge("options", "-c statement_timeout=" + (timeoutMs + 1000), (a, b) -> a + " " + b);
        props.forEach(pool::addDataSourceProperty);
        pool.addDataSourceProperty("connectTimeout", Long.toString(connectSeconds));
        pool.addDataSourceProperty("loginTimeout", Long.toString(connectSeconds));
        // a server that stops answering (SIGSTOP, network partition) must not hang a worker forever
        pool.addDataSourceProperty("socketTimeout", Long.toString(timeoutMs / 1000 + 30));
        pool.addDataSourceProperty("ApplicationName", "sqloop-executor");
    }

    /**
     * {@code DISCARD ALL} before every query: it drops temporary tables, resets every {@code set_config}/{@code SET}
     * back to the role's defaults (so {@code default_transaction_read_only} stays on: it comes from the startup
     * options), releases advisory locks, and deallocates prepared statements and cursors. One round trip.
     */
    @Override
    public void resetSession(java.sql.Connection c) throws java.sql.SQLException {
        try (java.sql.Statement st = c.createStatement()) {
            st.execute("DISCARD ALL");
        }
    }

    @Override
    public ErrorClassifier errors() {
        return ERRORS;
    }
}
