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
                // a backslash in '…' is a character, as sqloop's lexers read it: with the setting off (a role or
                // database default can turn it off) 'a\' ; … would end elsewhere on the server than in the checks
                p.merge("options", "-c default_transaction_read_only=on -c standard_conforming_strings=on", (a, b) -> a + " " + b);
            }
            default -> { }
        }
        return p;
    }

    /**
     * Session settings that make HiveServer2 and the Spark Thrift Server run the very text sqloop checked. Both
     * substitute {@code ${…}} variables in a statement before parsing it ({@code ${system:line.separator}} ends a
     * {@code --} comment the checks read to the end of the line; {@code ${env:…}} and {@code ${hiveconf:…}} read the
     * server's environment and settings), Spark may read backslashes in literals literally, double quotes as names and
     * backtick names as regular expressions, Hive backtick names as regular expressions. Each is set to the reading
     * sqloop's lexers and parsers have; a URL cannot change them.
     */
    public static Map<String, String> textSettings(dev.sqloop.common.Dialect dialect) {
        Map<String, String> m = new LinkedHashMap<>();
        switch (dialect) {
            case HIVE -> {
                m.put("hive.variable.substitute", "false");
                m.put("hive.support.quoted.identifiers", "column");
            }
            case SPARKSQL -> {
                m.put("hive.variable.substitute", "false");
                m.put("spark.sql.variable.substitute", "false");
                m.put("spark.sql.parser.escapedStringLiterals", "false");
                m.put("spark.sql.parser.quotedRegexColumnNames", "false");
                m.put("spark.sql.ansi.doubleQuotedIdentifiers", "false");
            }
            default -> { }
        }
        return java.util.Collections.unmodifiableMap(m);
    }

    /** The datasource's JDBC URL with {@link #textSettings} in it where the engine takes settings in the URL. */
    public static String url(DatasourceConfig ds) {
        Map<String, String> settings = textSettings(ds.dialect());
        return settings.isEmpty() ? ds.jdbcUrl() : HiveServer2Url.withConfiguration(ds.jdbcUrl(), settings);
    }

    /** A new read-only connection; the caller closes it. */
    public static Connection open(DatasourceConfig ds) throws SQLException {
        Properties props = new Properties();
        props.putAll(driverProperties(ds));
        if (ds.user() != null) props.put("user", ds.user());
        if (ds.password() != null) props.put("password", ds.password());
        DriverManager.setLoginTimeout((int) Math.max(1, ds.connectTimeout().toSeconds()));
        Connection c = DriverManager.getConnection(url(ds), props);
        try {
            c.setReadOnly(true);
        } catch (SQLException ignored) {
            // some drivers (DuckDB once opened read-only) refuse to change it: the properties already hold
        }
        return c;
    }
}
