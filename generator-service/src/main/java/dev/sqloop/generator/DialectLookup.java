package dev.sqloop.generator;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.config.ConfigException;
import dev.sqloop.common.config.EnvConfig;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Which SQL dialect a datasource speaks. The full datasource configuration lives elsewhere; the generator only
 * needs this one fact, so it depends on this small interface.
 */
@FunctionalInterface
public interface DialectLookup {
    String ENV = "SQLOOP_DATASOURCE_DIALECTS";

    Optional<Dialect> dialectOf(String datasource);

    static DialectLookup of(Map<String, Dialect> dialects) {
        Map<String, Dialect> copy = Map.copyOf(dialects);
        return datasource -> Optional.ofNullable(copy.get(datasource));
    }

    /** {@code SQLOOP_DATASOURCE_DIALECTS=demo=duckdb,warehouse=trino}. */
    static DialectLookup fromEnv(EnvConfig env) {
        return of(parse(env.string(ENV, "")));
    }

    static Map<String, Dialect> parse(String spec) {
        Map<String, Dialect> out = new LinkedHashMap<>();
        for (String entry : spec.split(",")) {
            if (entry.isBlank()) continue;
            String[] kv = entry.split("[=:]", 2);
            if (kv.length != 2 || kv[0].isBlank()) {
                throw new ConfigException(ENV + " entries must look like datasource=dialect, was '" + entry.trim() + "'");
            }
            try {
                out.put(kv[0].trim(), Dialect.fromWire(kv[1]));
            } catch (IllegalArgumentException e) {
                throw new ConfigException(ENV + ": " + e.getMessage());
            }
        }
        return out;
    }
}
