package dev.sqloop.fewshot;

import dev.sqloop.common.config.EnvConfig;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The few-shot service's retrieval, shortcut and capture settings, from {@code SQLOOP_FEWSHOT_*} variables. Where the
 * examples are stored is example-store's {@code ExampleStoreConfig} (same prefix).
 *
 * @param minScore cosine similarity an example needs to be retrieved
 * @param shortcutExact send a stored example's SQL straight to validation when the normalized question matches
 * @param shortcutSimilarity also shortcut when the best example is at least this similar; above 1 means off
 * @param captureRequireRows auto-capture only successes whose query returned at least one row
 * @param schemaJdbcUrls JDBC URL per datasource for schema linking ({@code SQLOOP_FEWSHOT_SCHEMA_JDBC_<NAME>})
 */
public record FewshotConfig(int topK, double minScore, double duplicateOverlap,
                            boolean shortcutExact, double shortcutSimilarity, boolean captureRequireRows,
                            String defaultDialect, String schemaName, Map<String, String> schemaJdbcUrls) {
    public static final String JDBC_PREFIX = "SQLOOP_FEWSHOT_SCHEMA_JDBC_";

    public static FewshotConfig fromEnv(EnvConfig env) {
        Map<String, String> urls = new TreeMap<>();
        env.raw().forEach((k, v) -> {
            if (k.startsWith(JDBC_PREFIX) && k.length() > JDBC_PREFIX.length()) {
                urls.put(k.substring(JDBC_PREFIX.length()).toLowerCase(Locale.ROOT), v);
            }
        });
        return new FewshotConfig(
                env.integer("SQLOOP_FEWSHOT_TOP_K", 5, 0, 50),
                env.decimal("SQLOOP_FEWSHOT_MIN_SCORE", 0.5),
                env.decimal("SQLOOP_FEWSHOT_DUPLICATE_OVERLAP", 0.9),
                env.bool("SQLOOP_FEWSHOT_SHORTCUT_EXACT", true),
                env.decimal("SQLOOP_FEWSHOT_SHORTCUT_SIMILARITY", 2.0),
                env.bool("SQLOOP_FEWSHOT_CAPTURE_REQUIRE_ROWS", true),
                env.string("SQLOOP_FEWSHOT_DIALECT", "duckdb"),
                env.string("SQLOOP_FEWSHOT_SCHEMA_NAME", null),
                urls);
    }

    /** The defaults, as a service started with no {@code SQLOOP_FEWSHOT_*} variable gets them. */
    public static FewshotConfig defaults() {
        return fromEnv(new EnvConfig(Map.of()));
    }

    public FewshotConfig withShortcut(boolean exact, double similarity) {
        return new FewshotConfig(topK, minScore, duplicateOverlap, exact, similarity, captureRequireRows, defaultDialect,
                schemaName, schemaJdbcUrls);
    }

    public FewshotConfig withCaptureRequireRows(boolean value) {
        return new FewshotConfig(topK, minScore, duplicateOverlap, shortcutExact, shortcutSimilarity, value, defaultDialect,
                schemaName, schemaJdbcUrls);
    }

    @Override
    public String toString() {
        return "FewshotConfig[topK=" + topK + ", minScore=" + minScore
                + ", shortcutExact=" + shortcutExact + ", shortcutSimilarity=" + shortcutSimilarity
                + ", captureRequireRows=" + captureRequireRows + ", schemaDatasources=" + schemaJdbcUrls.keySet() + "]";
    }
}
