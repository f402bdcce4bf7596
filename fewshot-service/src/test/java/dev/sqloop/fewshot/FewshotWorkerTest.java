package dev.sqloop.fewshot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.config.EnvConfig;
import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.datasource.Datasources;
import dev.sqloop.fewshot.schema.JdbcSchemaSource;
import dev.sqloop.fewshot.schema.SchemaSource.TableInfo;
import dev.sqloop.store.LuceneExampleStore;
import dev.sqloop.store.StoredExample;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FewshotWorkerTest {
    @TempDir
    Path dir;

    @Test
    void shouldExportTheExamplesStoredPerConfiguredDatasourceAsTheStoreHoldsThemAtEachScrape() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (LuceneExampleStore store = LuceneExampleStore.open(dir)) {
            Datasources datasources = Datasources.of(DatasourceConfig.of("shop", Dialect.DUCKDB, "jdbc:duckdb:/x", null, null));
            FewshotConfig config = FewshotConfig.fromEnv(new EnvConfig(Map.of(FewshotConfig.JDBC_PREFIX + "HR", "jdbc:duckdb:/y")));
            FewshotWorker.registerExampleGauges(registry, store, datasources, config);
            assertScraped(registry, "sqloop_fewshot_examples{datasource=\"shop\"} 0");
            assertScraped(registry, "sqloop_fewshot_examples{datasource=\"hr\"} 0");

            float[] v = new float[dev.sqloop.store.Embedder.DIMENSION];
            v[0] = 1;
            store.upsert(new StoredExample("shop", "How many orders?", "SELECT count(*) FROM orders", "duckdb", StoredExample.SEED, null), v);
            store.upsert(new StoredExample("shop", "How many orders?", "SELECT 1", "duckdb", StoredExample.AUTO, null, "acme", null, List.of()), v);
            store.upsert(new StoredExample("elsewhere", "How many orders?", "SELECT 1", "duckdb", StoredExample.SEED, null), v);
            assertScraped(registry, "sqloop_fewshot_examples{datasource=\"shop\"} 2");
            assertScraped(registry, "sqloop_fewshot_examples{datasource=\"hr\"} 0");
            assertFalse(registry.scrape().contains("datasource=\"elsewhere\""), "only configured datasources get a series");
        }
    }

    /**
     * The prompt's schema is read as the executor and validator read the datasource: its own schema and every schema
     * its {@code _ALLOWED_SCHEMAS} lets queries reach (those tables as schema.table); a schema it does not allow stays out.
     */
    @Test
    void shouldReadTheSchemasTheDatasourceAllowsForThePrompt() throws Exception {
        Path file = dir.resolve("shop.duckdb");
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:" + file);
             Statement s = c.createStatement()) {
            s.execute("CREATE TABLE orders (id INTEGER)");
            s.execute("CREATE SCHEMA hr");
            s.execute("CREATE TABLE hr.staff (id INTEGER)");
            s.execute("CREATE SCHEMA secret");
            s.execute("CREATE TABLE secret.salaries (id INTEGER)");
        }
        Map<String, String> env = Map.of("SQLOOP_DATASOURCE_SHOP_DIALECT", "duckdb", "SQLOOP_DATASOURCE_SHOP_URL", "jdbc:duckdb:" + file);
        FewshotConfig config = FewshotConfig.fromEnv(new EnvConfig(Map.of()));
        assertEquals(List.of("orders"), tableNames(FewshotWorker.schemaSource(config, Datasources.fromEnv(new EnvConfig(env)))));
        Map<String, String> allowing = new HashMap<>(env);
        allowing.put("SQLOOP_DATASOURCE_SHOP_ALLOWED_SCHEMAS", "main,HR");
        assertEquals(List.of("hr.staff", "orders"), tableNames(FewshotWorker.schemaSource(config, Datasources.fromEnv(new EnvConfig(allowing)))));
    }

    private static List<String> tableNames(dev.sqloop.fewshot.schema.SchemaSource source) throws Exception {
        return source.tables("shop").stream().map(TableInfo::name).sorted().toList();
    }

    private static void assertScraped(PrometheusMeterRegistry registry, String line) {
        String scrape = registry.scrape();
        assertTrue(scrape.contains(line), () -> "missing " + line + " in\n" + scrape);
    }
}
