package dev.sqloop.common.datasource;

import dev.sqloop.common.Dialect;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * One named warehouse connection: its dialect, where it is, who connects (the password never appears in
 * {@link #toString()}), what it may read, and how queries on it are bounded.
 *
 * @param name            lower-case id, as questions name it ({@code sqloop-datasource} header)
 * @param allowedCatalogs empty means every catalog; names compare as the engine compares them ({@link AllowList}:
 *                        ignoring case, but on PostgreSQL a quoted entry keeps its case, {@code "Sales"})
 * @param allowedSchemas  empty means every schema
 * @param allowedTables   empty means every table; entries may be qualified ({@code sales.orders})
 * @param rowLimit        the most rows a query returns (the executor's LIMIT wrapper)
 * @param queryTimeout    per query, enforced by the driver ({@code setQueryTimeout}) and, where possible, the engine
 * @param connectTimeout  how long to wait for a pooled connection before calling the warehouse unavailable
 * @param properties      extra driver properties ({@code SQLOOP_DATASOURCE_<NAME>_PROPERTY_<KEY>})
 * @param safeguards      engine resource caps and the regex policy ({@link Safeguards})
 */
public record DatasourceConfig(
        String name,
        Dialect dialect,
        String jdbcUrl,
        String user,
        String password,
        Set<String> allowedCatalogs,
        Set<String> allowedSchemas,
        Set<String> allowedTables,
        int rowLimit,
        Duration queryTimeout,
        Duration connectTimeout,
        ValidationMode validationMode,
        int poolSize,
        Map<String, String> properties,
        Safeguards safeguards) {

    public static final int DEFAULT_ROW_LIMIT = 1000;
    public static final Duration DEFAULT_QUERY_TIMEOUT = Duration.ofSeconds(30);
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);
    public static final int DEFAULT_POOL_SIZE = 4;

    public DatasourceConfig {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(dialect, "dialect");
        Objects.requireNonNull(jdbcUrl, "jdbcUrl");
        name = name.toLowerCase(Locale.ROOT);
        AllowList allowed = new AllowList(dialect.quotedNamesKeepCase(), allowedCatalogs, allowedSchemas, allowedTables);
        allowedCatalogs = allowed.catalogs();
        allowedSchemas = allowed.schemas();
        allowedTables = allowed.tables();
        if (rowLimit < 1) throw new IllegalArgumentException("rowLimit must be >= 1, was " + rowLimit);
        queryTimeout = queryTimeout == null ? DEFAULT_QUERY_TIMEOUT : queryTimeout;
        connectTimeout = connectTimeout == null ? DEFAULT_CONNECT_TIMEOUT : connectTimeout;
        validationMode = validationMode == null ? ValidationMode.LIMIT : validationMode;
        if (poolSize < 1) throw new IllegalArgumentException("poolSize must be >= 1, was " + poolSize);
        properties = properties == null ? Map.of() : Map.copyOf(properties);
        safeguards = safeguards == null ? Safeguards.DEFAULTS : safeguards;
    }

    public DatasourceConfig(String name, Dialect dialect, String jdbcUrl, String user, String password,
                            Set<String> allowedCatalogs, Set<String> allowedSchemas, Set<String> allowedTables, int rowLimit,
                            Duration queryTimeout, Duration connectTimeout, ValidationMode validationMode, int poolSize,
                            Map<String, String> properties) {
        this(name, dialect, jdbcUrl, user, password, allowedCatalogs, allowedSchemas, allowedTables, rowLimit, queryTimeout,
                connectTimeout, validationMode, poolSize, properties, Safeguards.DEFAULTS);
    }

    public DatasourceConfig withSafeguards(Safeguards s) {
        return new DatasourceConfig(name, dialect, jdbcUrl, user, password, allowedCatalogs, allowedSchemas,
                allowedTables, rowLimit, queryTimeout, connectTimeout, validationMode, poolSize, properties, s);
    }

    /** A datasource with defaults for everything but where it is. */
    public static DatasourceConfig of(String name, Dialect dialect, String jdbcUrl, String user, String password) {
        return new DatasourceConfig(name, dialect, jdbcUrl, user, password, Set.of(), Set.of(), Set.of(),
                DEFAULT_ROW_LIMIT, DEFAULT_QUERY_TIMEOUT, DEFAULT_CONNECT_TIMEOUT, ValidationMode.LIMIT,
                DEFAULT_POOL_SIZE, Map.of());
    }

    public DatasourceConfig withLimits(int rowLimit, Duration queryTimeout) {
        return new DatasourceConfig(name, dialect, jdbcUrl, user, password, allowedCatalogs, allowedSchemas,
                allowedTables, rowLimit, queryTimeout, connectTimeout, validationMode, poolSize, properties, safeguards);
    }

    public DatasourceConfig withPool(int poolSize, Duration connectTimeout) {
        return new DatasourceConfig(name, dialect, jdbcUrl, user, password, allowedCatalogs, allowedSchemas,
                allowedTables, rowLimit, queryTimeout, connectTimeout, validationMode, poolSize, properties, safeguards);
    }

    public DatasourceConfig withValidationMode(ValidationMode mode) {
        return new DatasourceConfig(name, dialect, jdbcUrl, user, password, allowedCatalogs, allowedSchemas,
                allowedTables, rowLimit, queryTimeout, connectTimeout, mode, poolSize, properties, safeguards);
    }

    public DatasourceConfig withAllowed(Set<String> catalogs, Set<String> schemas, Set<String> tables) {
        return new DatasourceConfig(name, dialect, jdbcUrl, user, password, catalogs, schemas, tables, rowLimit,
                queryTimeout, connectTimeout, validationMode, poolSize, properties, safeguards);
    }

    /** The allow-lists with the engine's way of comparing names. */
    public AllowList allowList() {
        return new AllowList(dialect.quotedNamesKeepCase(), allowedCatalogs, allowedSchemas, allowedTables);
    }

    /** @see AllowList#catalogAllowed */
    public boolean catalogAllowed(String catalog) {
        return allowList().catalogAllowed(catalog);
    }

    /** @see AllowList#schemaAllowed */
    public boolean schemaAllowed(String schema) {
        return allowList().schemaAllowed(schema);
    }

    /** The parts as the engine names them (null where not known); see {@link AllowList#tableAllowed}. */
    public boolean tableAllowed(String catalog, String schema, String table) {
        return allowList().tableAllowed(catalog, schema, table);
    }

    /** The JDBC URL without any {@code password=} parameter, for logs. */
    public String safeUrl() {
        return jdbcUrl.replaceAll("(?i)(password=)[^&;]*", "$1****");
    }

    @Override
    public String toString() {
        return "DatasourceConfig[name=" + name + ", dialect=" + dialect.wireName() + ", url=" + safeUrl()
                + ", user=" + user + ", password=" + (password == null || password.isEmpty() ? "<none>" : "****")
                + ", allowedCatalogs=" + allowedCatalogs + ", allowedSchemas=" + allowedSchemas
                + ", allowedTables=" + allowedTables + ", rowLimit=" + rowLimit + ", queryTimeout=" + queryTimeout
                + ", connectTimeout=" + connectTimeout + ", validationMode=" + validationMode.wireName()
                + ", poolSize=" + poolSize + ", properties=" + maskedProperties() + ", safeguards=" + safeguards + "]";
    }

    private Map<String, String> maskedProperties() {
        Map<String, String> out = new java.util.TreeMap<>();
        properties.forEach((k, v) -> out.put(k, k.toLowerCase(Locale.ROOT).matches(".*(password|secret|token|key).*") ? "****" : v));
        return out;
    }

    static List<String> split(String csv) {
        if (csv == null || csv.isBlank()) return List.of();
        return java.util.Arrays.stream(csv.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
    }
}
