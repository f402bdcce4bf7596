package dev.sqloop.executor;

import com.zaxxer.hikari.HikariConfig;
import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.datasource.ReadOnlyJdbc;
import dev.sqloop.common.datasource.Safeguards;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.Set;

/**
 * PostgreSQL through pgjdbc. The role should itself be read-only (SELECT grants only); on top of that every
 * session starts with {@code default_transaction_read_only=on}, pgjdbc enforces read-only even in
 * autocommit mode, and the server bounds each query itself: {@code statement_timeout} backs up the driver's query
 * timeout, {@code lock_timeout} ends a wait behind another session's lock, {@code work_mem} bounds a sort or hash
 * before it spills and {@code temp_file_limit} what it may spill.
 */
final class PostgresProfile implements EngineProfile {
    private static final ErrorClassifier ERRORS = new PostgresErrors();
    static final String TEMP_FILE_LIMIT = "temp_file_limit";

    @Override
    public void configure(HikariConfig pool, DatasourceConfig ds) {
        configure(pool, ds, Set.of());
    }

    @Override
    public void configure(HikariConfig pool, DatasourceConfig ds, Set<String> without) {
        pool.setJdbcUrl(ds.jdbcUrl());
        pool.setDriverClassName("org.postgresql.Driver");
        if (ds.user() != null) pool.setUsername(ds.user());
        if (ds.password() != null) pool.setPassword(ds.password());
        long timeoutMs = ds.queryTimeout().toMillis();
        long connectSeconds = Math.max(1, ds.connectTimeout().toSeconds());
        // read-only settings shared with every component (ReadOnlyJdbc), then the server's own bounds on one query: it
        // cancels one second after the driver would, so the driver's TIMEOUT normally wins. Startup options, so DISCARD
        // ALL returns to them and no query can SET them away for the next.
        Map<String, String> props = ReadOnlyJdbc.driverProperties(ds);
        StringBuilder options = new StringBuilder("-c statement_timeout=").append(timeoutMs + 1000)
                .append(" -c lock_timeout=").append(Math.max(1000, Math.min(timeoutMs, 5000)))
                .append(" -c idle_in_transaction_session_timeout=").append(timeoutMs + 5000)
                .append(" -c work_mem=").append(Safeguards.kilobytes(ds.safeguards().workMem())).append("kB");
        // temp_file_limit is a superuser setting: the role needs GRANT SET ON PARAMETER (PostgreSQL 15+), else it is
        // left to the role's own value (refusedOptionalSetting, and a warning naming the grant)
        if (!without.contains(TEMP_FILE_LIMIT)) {
            options.append(" -c ").append(TEMP_FILE_LIMIT).append('=').append(Safeguards.kilobytes(ds.safeguards().tempSize())).append("kB");
        }
        props.merge("options", options.toString(), (a, b) -> a + " " + b);
        props.forEach(pool::addDataSourceProperty);
        pool.addDataSourceProperty("connectTimeout", Long.toString(connectSeconds));
        pool.addDataSourceProperty("loginTimeout", Long.toString(connectSeconds));
        // a server that stops answering (SIGSTOP, network partition) must not hang a worker forever
        pool.addDataSourceProperty("socketTimeout", Long.toString(timeoutMs / 1000 + 30));
        pool.addDataSourceProperty("ApplicationName", "sqloop-executor");
    }

    @Override
    public String refusedOptionalSetting(SQLException failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SQLException e && "42501".equals(e.getSQLState()) && e.getMessage() != null
                    && e.getMessage().contains(TEMP_FILE_LIMIT)) {
                return TEMP_FILE_LIMIT;
            }
        }
        return null;
    }

    @Override
    public String howToGrant(String setting) {
        return "To bound what one query may write to temporary files, run as a superuser: GRANT SET ON PARAMETER " + setting
                + " TO <role> (PostgreSQL 15+), or ALTER ROLE <role> SET " + setting + " = '1GB'";
    }

    /** The session must read {@code '…'} with backslashes as characters, as the checks do (startup option, verified). */
    @Override
    public String sessionProblem(Connection c) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SHOW standard_conforming_strings")) {
            String value = rs.next() ? rs.getString(1) : null;
            return "on".equalsIgnoreCase(value) ? null
                    : "reads backslashes in string literals as escapes (standard_conforming_strings=" + value + ")";
        }
    }

    /**
     * {@code DISCARD ALL} after every query: it drops temporary tables, resets every {@code set_config}/{@code SET}
     * back to the session's startup values (so {@code default_transaction_read_only} and the bounds stay), releases
     * advisory locks, and deallocates prepared statements and cursors. One round trip.
     */
    @Override
    public void resetSession(Connection c) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute("DISCARD ALL");
        }
    }

    @Override
    public ErrorClassifier errors() {
        return ERRORS;
    }
}
