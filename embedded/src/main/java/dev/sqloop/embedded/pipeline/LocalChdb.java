package dev.sqloop.embedded.pipeline;

import dev.sqloop.chdb.Chdb;
import dev.sqloop.chdb.ChdbException;
import dev.sqloop.chdb.ChdbSession;
import dev.sqloop.chdb.ChdbUrl;
import dev.sqloop.testkit.engines.ChdbLibrary;
import dev.sqloop.testkit.engines.DefogDatasets;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Map;

/**
 * chDB's {@code libchdb.so} for the embedded commands (demo, serve, eval) when a datasource is {@code jdbc:chdb:}: the
 * user's own ({@code SQLOOP_CHDB_LIBRARY}), else testkit's copy, fetched with {@code npm pack} once per machine, saying
 * so first (178 MB to download). Either way the JVM ends through {@link ChdbLibrary}'s exit guard: chDB's native exit
 * handlers hung or crashed JVMs that had loaded it.
 */
public final class LocalChdb {
    private LocalChdb() {}

    /** Whether any datasource of {@code settings} ({@code SQLOOP_DATASOURCE_<NAME>_URL}) runs on chDB in this process. */
    public static boolean needed(Map<String, String> settings) {
        return settings.entrySet().stream().anyMatch(e -> e.getKey().startsWith("SQLOOP_DATASOURCE_") && e.getKey().endsWith("_URL")
                && ChdbUrl.matches(e.getValue()));
    }

    /**
     * Loads each defog database a chDB datasource names ({@code jdbc:chdb:DIR?database=broker}) and its directory lacks
     * (testkit's {@link DefogDatasets#clickHouseLoad}: the PostgreSQL script evaluated by DuckDB, written as Parquet under
     * {@code work}, read into MergeTree tables); a database already there is kept as it is. The dataset is found under
     * {@code $SQLOOP_HOME/datasets/defog} (the launcher sets it) unless {@value DefogDatasets#DIR_PROPERTY} says otherwise.
     */
    public static void loadDefog(Map<String, String> settings, Path work, PrintStream notes) throws ChdbException {
        String home = System.getenv("SQLOOP_HOME");
        if (System.getProperty(DefogDatasets.DIR_PROPERTY) == null && home != null && !home.isBlank()) {
            System.setProperty(DefogDatasets.DIR_PROPERTY, Path.of(home, "datasets", "defog").toString());
        }
        for (Map.Entry<String, String> e : new java.util.TreeMap<>(settings).entrySet()) {
            if (!e.getKey().startsWith("SQLOOP_DATASOURCE_") || !e.getKey().endsWith("_URL") || !ChdbUrl.matches(e.getValue())) continue;
            ChdbUrl url = ChdbUrl.of(e.getValue());
            if (!DefogDatasets.DATABASES.contains(url.database())) continue;
            try (ChdbSession s = Chdb.open(url.directory()).session(Map.of())) {
                if (!s.query("SELECT name FROM system.databases WHERE name = '" + url.database() + "'").rows().isEmpty()) continue;
                long t0 = System.nanoTime();
                for (String statement : DefogDatasets.clickHouseLoad(url.database(), work)) s.execute(statement);
                notes.printf("sqloop eval: loaded defog's %s into chDB at %s in %.1f s%n", url.database(), url.directory(),
                        (System.nanoTime() - t0) / 1e9);
            }
        }
    }

    /** The library this JVM's chDB loads, fetched first when neither the user's nor a cached one exists. */
    public static Path library(Map<String, String> settings, PrintStream notes) {
        String own = settings.get(Chdb.LIBRARY_ENV);
        if (own != null && !own.isBlank()) return ChdbLibrary.use(Path.of(own));
        if (!ChdbLibrary.installed()) {
            notes.printf("sqloop: fetching chDB, ClickHouse in one library (npm %s@%s: 178 MB download, 566 MB on disk) into %s;"
                    + " once per machine (SQLOOP_CHDB_LIBRARY=/path/to/libchdb.so uses yours)%n", ChdbLibrary.PACKAGE, ChdbLibrary.VERSION,
                    ChdbLibrary.cacheDir());
        }
        return ChdbLibrary.forThisJvm();
    }
}
