package dev.sqloop.common.datasource;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/**
 * The one set of driver properties every sqloop component opens an embedded DuckDB file with. DuckDB keeps
 * one database instance per file per JVM and refuses a second connection with a different configuration
 * ("Can't open a connection to same database file with a different configuration"), so the validator and
 * the executor running in one JVM (the embedded demo) must use exactly these.
 *
 * <p>{@code duckdb.read_only} alone still lets a query {@code COPY … TO} a file or {@code read_csv} any local
 * file: external access is disabled, extensions are never installed or loaded, and the configuration is
 * locked so no query can {@code SET} any of it back.
 */
public final class DuckDbReadOnly {
    public static final Map<String, String> PROPERTIES = orderedProperties();

    private DuckDbReadOnly() {}

    /**
     * A fresh {@link Properties} for {@code DriverManager.getConnection("jdbc:duckdb:/path", …)}, with the default
     * caps ({@link Safeguards#DEFAULTS}): what a datasource without cap settings is opened with.
     */
    public static Properties properties() {
        Properties p = new Properties();
        properties(Safeguards.DEFAULTS).forEach(p::setProperty);
        return p;
    }

    /**
     * {@link #PROPERTIES} plus the resource caps of one datasource: {@code memory_limit} (DuckDB's default is 80 % of
     * RAM), {@code threads} and {@code max_temp_directory_size}. Set at open time, they are locked with the rest.
     */
    public static Map<String, String> properties(Safeguards caps) {
        Map<String, String> m = new LinkedHashMap<>(PROPERTIES);
        m.put("memory_limit", caps.memoryLimit());
        m.put("threads", Integer.toString(caps.threads()));
        m.put("max_temp_directory_size", caps.tempSize());
        return java.util.Collections.unmodifiableMap(m);
    }

    private static Map<String, String> orderedProperties() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("duckdb.read_only", "true");
        m.put("enable_external_access", "false");
        m.put("autoinstall_known_extensions", "false");
        m.put("autoload_known_extensions", "false");
        m.put("lock_configuration", "true");
        return java.util.Collections.unmodifiableMap(m);
    }
}
