package dev.sqloop.common.datasource;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.config.ConfigException;
import dev.sqloop.common.config.EnvConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The named datasources a service may use, read from {@code SQLOOP_DATASOURCE_<NAME>_<SETTING>} variables.
 * A datasource exists when its {@code _URL} or {@code _DIALECT} is set; both are then required. Any other
 * variable under the prefix that names no known setting fails the start, so a typo never silently falls
 * back to a default.
 */
public final class Datasources {
    public static final String PREFIX = "SQLOOP_DATASOURCE_";
    /** Read by the executor only: an empty answer gets one repair round with the finding as evidence (default false). */
    public static final String EMPTY_ANSWER_REPAIR = "_EMPTY_ANSWER_REPAIR";
    /** Read by the generator only: candidate SQL per question, chosen among by their results (issue 50; default 1). */
    public static final String CANDIDATES = "_CANDIDATES";
    /** The most candidates a datasource's {@code _CANDIDATES} or a submitted question's {@code candidates} may ask for. */
    public static final int MAX_CANDIDATES = 9;
    /**
     * Read by the executor only: when the candidates' results do not agree clearly, a pairwise LLM comparison chooses
     * among the tied ones before the question ends {@code uncertain} (issue 50; default false: it costs LLM calls).
     */
    public static final String TIE_BREAK = "_TIE_BREAK";

    /** Settings per datasource, longest first so {@code _PASSWORD_FILE} wins over {@code _PASSWORD}. */
    private static final List<String> SETTINGS = List.of(
            "_EMPTY_ANSWER_REPAIR", "_ALLOWED_CATALOGS", "_ALLOWED_SCHEMAS", "_ALLOWED_TABLES", "_MAX_SCAN_BYTES", "_MAX_SCAN_ROWS",
            "_PROCESS_MEMORY", "_CONNECT_TIMEOUT", "_CANDIDATES", "_PASSWORD_FILE",
            "_MEMORY_LIMIT", "_ISOLATION", "_ROW_LIMIT", "_POOL_SIZE", "_TEMP_SIZE", "_TIE_BREAK", "_PASSWORD", "_FUNCTIONS", "_WORK_MEM",
            "_DIALECT", "_THREADS", "_TIMEOUT", "_MAX_COST", "_REGEX",
            "_MODE", "_USER", "_URL");
    private static final String PROPERTY = "_PROPERTY_";

    private final Map<String, DatasourceConfig> byName;

    public Datasources(Collection<DatasourceConfig> configs) {
        Map<String, DatasourceConfig> m = new LinkedHashMap<>();
        for (DatasourceConfig c : configs) {
            if (m.put(c.name(), c) != null) throw new ConfigException("datasource '" + c.name() + "' is defined twice");
        }
        this.byName = Map.copyOf(m);
    }

    public static Datasources of(DatasourceConfig... configs) {
        return new Datasources(List.of(configs));
    }

    public static Datasources fromEnv(EnvConfig env) {
        Set<String> names = new TreeSet<>();
        env.raw().keySet().stream().filter(k -> k.startsWith(PREFIX)).forEach(k -> {
            if (k.endsWith("_URL") && !k.contains(PROPERTY)) names.add(k.substring(PREFIX.length(), k.length() - 4));
            if (k.endsWith("_DIALECT") && !k.contains(PROPERTY)) names.add(k.substring(PREFIX.length(), k.length() - 8));
        });
        names.removeIf(String::isEmpty);
        for (String key : env.raw().keySet()) {
            if (key.startsWith(PREFIX) && !belongsToAny(key, names)) {
                throw new ConfigException(key + " is not a datasource setting: expected " + PREFIX
                        + "<NAME>{" + String.join(",", SETTINGS) + "," + PROPERTY + "<KEY>} with " + PREFIX
                        + "<NAME>_URL and _DIALECT set");
            }
        }
        return new Datasources(names.stream().map(n -> read(env, n)).toList());
    }

    /**
     * Only the dialect of each datasource ({@code SQLOOP_DATASOURCE_<NAME>_DIALECT}), for services that need
     * no connection (generator, gateway) and so get no credentials.
     */
    public static java.util.Map<String, dev.sqloop.common.Dialect> dialectsFromEnv(EnvConfig env) {
        java.util.Map<String, dev.sqloop.common.Dialect> out = new java.util.TreeMap<>();
        env.raw().forEach((k, v) -> {
            if (k.startsWith(PREFIX) && k.endsWith("_DIALECT") && !k.contains(PROPERTY) && k.length() > PREFIX.length() + 8) {
                String name = k.substring(PREFIX.length(), k.length() - 8).toLowerCase(java.util.Locale.ROOT);
                try {
                    out.put(name, dev.sqloop.common.Dialect.fromWire(v));
                } catch (IllegalArgumentException e) {
                    throw new ConfigException(k + ": " + e.getMessage());
                }
            }
        });
        return out;
    }

    private static boolean belongsToAny(String key, Set<String> names) {
        for (String n : names) {
            String p = PREFIX + n;
            if (!key.startsWith(p)) continue;
            String rest = key.substring(p.length());
            if (SETTINGS.contains(rest) || (rest.startsWith(PROPERTY) && rest.length() > PROPERTY.length())) return true;
        }
        return false;
    }

    private static DatasourceConfig read(EnvConfig env, String name) {
        String p = PREFIX + name;
        Dialect dialect;
        try {
            dialect = Dialect.fromWire(env.required(p + "_DIALECT"));
        } catch (IllegalArgumentException e) {
            throw new ConfigException(p + "_DIALECT: " + e.getMessage());
        }
        String url = env.required(p + "_URL");
        if (!url.startsWith("jdbc:")) throw new ConfigException(p + "_URL must be a JDBC URL (jdbc:…), was '" + url + "'");
        ValidationMode mode;
        try {
            mode = ValidationMode.fromWire(env.string(p + "_MODE", "limit"));
        } catch (IllegalArgumentException e) {
            throw new ConfigException(p + "_MODE: " + e.getMessage());
        }
        Duration timeout = env.duration(p + "_TIMEOUT", DatasourceConfig.DEFAULT_QUERY_TIMEOUT);
        if (timeout.toMillis() < 1000) throw new ConfigException(p + "_TIMEOUT must be at least 1s (JDBC counts whole seconds), was " + timeout);
        Duration connect = env.duration(p + "_CONNECT_TIMEOUT", DatasourceConfig.DEFAULT_CONNECT_TIMEOUT);
        if (connect.toMillis() < 250) throw new ConfigException(p + "_CONNECT_TIMEOUT must be at least 250ms, was " + connect);
        Map<String, String> props = new TreeMap<>();
        env.raw().forEach((k, v) -> {
            if (k.startsWith(p + PROPERTY)) props.put(k.substring((p + PROPERTY).length()).toLowerCase(Locale.ROOT), v);
        });
        return new DatasourceConfig(name, dialect, url, env.string(p + "_USER", null), password(env, p),
                Set.copyOf(DatasourceConfig.split(env.string(p + "_ALLOWED_CATALOGS", ""))),
                Set.copyOf(DatasourceConfig.split(env.string(p + "_ALLOWED_SCHEMAS", ""))),
                Set.copyOf(DatasourceConfig.split(env.string(p + "_ALLOWED_TABLES", ""))),
                env.integer(p + "_ROW_LIMIT", DatasourceConfig.DEFAULT_ROW_LIMIT, 1, 1_000_000),
                timeout, connect, mode,
                env.integer(p + "_POOL_SIZE", DatasourceConfig.DEFAULT_POOL_SIZE, 1, 256), props, safeguards(env, p));
    }

    private static Safeguards safeguards(EnvConfig env, String p) {
        String memory = env.string(p + "_MEMORY_LIMIT", Safeguards.DEFAULT_MEMORY_LIMIT);
        int threads = env.integer(p + "_THREADS", Safeguards.DEFAULT_THREADS, 1, 1024);
        String temp = env.string(p + "_TEMP_SIZE", Safeguards.DEFAULT_TEMP_SIZE);
        String regex = env.string(p + "_REGEX", "checked");
        String workMem = env.string(p + "_WORK_MEM", Safeguards.DEFAULT_WORK_MEM);
        java.util.Set<String> functions = Set.copyOf(DatasourceConfig.split(env.string(p + "_FUNCTIONS", "")));
        String isolation = env.string(p + "_ISOLATION", Safeguards.PROCESS);
        String processMemory = env.string(p + "_PROCESS_MEMORY", null);
        // each value checked on its own, so the error names the variable
        check(p + "_MEMORY_LIMIT", () -> new Safeguards(memory, 1, null, null));
        check(p + "_TEMP_SIZE", () -> new Safeguards(null, 1, temp, null));
        check(p + "_REGEX", () -> new Safeguards(null, 1, null, regex));
        check(p + "_WORK_MEM", () -> new Safeguards(null, 1, null, null, workMem));
        check(p + "_FUNCTIONS", () -> new Safeguards(null, 1, null, null, null, functions));
        check(p + "_ISOLATION", () -> Safeguards.DEFAULTS.withIsolation(isolation, null));
        check(p + "_PROCESS_MEMORY", () -> new Safeguards(memory, 1, null, null).withIsolation(null, processMemory));
        return new Safeguards(memory, threads, temp, regex, workMem, functions, isolation, processMemory, costBudget(env, p));
    }

    /** The cost guard's limits; each unset one is no limit, and none set (the default) is no guard. */
    private static CostBudget costBudget(EnvConfig env, String p) {
        Long rows = parsed(p + "_MAX_SCAN_ROWS", () -> CostBudget.rows(env.string(p + "_MAX_SCAN_ROWS", null)));
        Long bytes = parsed(p + "_MAX_SCAN_BYTES", () -> CostBudget.bytes(env.string(p + "_MAX_SCAN_BYTES", null)));
        Double cost = parsed(p + "_MAX_COST", () -> CostBudget.cost(env.string(p + "_MAX_COST", null)));
        check(p + "_MAX_SCAN_ROWS", () -> new CostBudget(rows, null, null));
        check(p + "_MAX_SCAN_BYTES", () -> new CostBudget(null, bytes, null));
        check(p + "_MAX_COST", () -> new CostBudget(null, null, cost));
        return new CostBudget(rows, bytes, cost);
    }

    private static <T> T parsed(String key, java.util.function.Supplier<T> read) {
        try {
            return read.get();
        } catch (IllegalArgumentException e) {
            throw new ConfigException(key + ": " + e.getMessage());
        }
    }

    private static void check(String key, Runnable build) {
        try {
            build.run();
        } catch (IllegalArgumentException e) {
            throw new ConfigException(key + ": " + e.getMessage());
        }
    }

    /** The password from {@code _PASSWORD}, or from the file {@code _PASSWORD_FILE} names (a mounted secret). */
    private static String password(EnvConfig env, String p) {
        String file = env.string(p + "_PASSWORD_FILE", null);
        String direct = env.string(p + "_PASSWORD", null);
        if (file != null && direct != null) throw new ConfigException(p + "_PASSWORD and " + p + "_PASSWORD_FILE are both set");
        if (file == null) return direct;
        try {
            return Files.readString(Path.of(file)).strip();
        } catch (IOException e) {
            throw new ConfigException(p + "_PASSWORD_FILE cannot be read (" + e.getClass().getSimpleName() + ")");
        }
    }

    public Optional<DatasourceConfig> find(String name) {
        return name == null ? Optional.empty() : Optional.ofNullable(byName.get(name.toLowerCase(Locale.ROOT)));
    }

    public DatasourceConfig get(String name) {
        return find(name).orElseThrow(() -> new ConfigException("unknown datasource '" + name + "' (known: " + names() + ")"));
    }

    public Set<String> names() {
        return new TreeSet<>(byName.keySet());
    }

    public Collection<DatasourceConfig> all() {
        return byName.values();
    }

    public boolean isEmpty() {
        return byName.isEmpty();
    }

    @Override
    public String toString() {
        return "Datasources" + byName.values();
    }
}
