package dev.sqloop.common.datasource;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/**
 * Read-only JDBC settings per dialect, and plain (unpooled) read-only connections for metadata work such as
 * loading a schema catalog. For DuckDB these must equal the executor's ({@link DuckDbReadOnly}): one JVM may
 * hold only one configuration per database file.
 */
public final class ReadOnlyJdbc {
    private ReadOnlyJdbc() {}

    /**
     * Driver properties that make a connection read-only on the engine's side, where the engine has such a
     * mode: DuckDB opens the file read-only with external access off and configuration locked (otherwise a
     * read-only connection can still {@code COPY … TO} files or {@code read_csv} any file); PostgreSQL starts
     * every transaction read-only. Trino, Hive and Spark have none: their protection is server-side access
     * control and the validator's parse-tree check.
     */
    public static Map<String, String> driverProperties(DatasourceConfig ds) {
        Map<String, String> p = new LinkedHashMap<>(ds.properties());
        switch (ds.dialect()) {
            case DUCKDB -> p.putAll(DuckDbReadOnly.properties(ds.safeguards()));
            case POSTGRES -> {
                p.put("readOnlyMode", "always");
                p.merge("options", "-c default_transaction_read_only=on", (a, b) -> a + " " + b);
            }
            default -> { }
        }
        return p;
    }

    /** A new read-only connection; the caller closes it. */
    public static Connection open(DatasourceConfig ds) throws SQLException {
        Properties props = new Properties();
        props.putAll(driverProperties(ds));
        if (ds.user() != null) props.put("user", ds.user());
        if (ds.password() != null) props.put("password", ds.password());
        DriverManager.setLoginTimeout((int) Math.max(1, ds.connectTimeout().toSeconds()));
        Connection c = DriverManager.getConnection(ds.jdbcUrl(), props);
        try {
            c.setReadOnly(true);
        } catch (SQLException ignored) {
            // some drivers (DuckDB once opened read-only) refuse to change it: the properties already hold
        }
        return c;
    }
}
