package dev.sqloop.common.datasource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.config.ConfigException;
import dev.sqloop.common.config.EnvConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DatasourcesTest {

    private static Datasources parse(Map<String, String> env) {
        return Datasources.fromEnv(new EnvConfig(env));
    }

    @Test
    void shouldReadEveryDatasourceSetting() {
        Map<String, String> env = new HashMap<>();
        env.put("SQLOOP_DATASOURCE_SALES_DW_DIALECT", "trino");
        env.put("SQLOOP_DATASOURCE_SALES_DW_URL", "jdbc:trino://localhost:8080/tpch/tiny");
        env.put("SQLOOP_DATASOURCE_SALES_DW_USER", "reader");
        env.put("SQLOOP_DATASOURCE_SALES_DW_PASSWORD", "s3cret");
        env.put("SQLOOP_DATASOURCE_SALES_DW_ROW_LIMIT", "50");
        env.put("SQLOOP_DATASOURCE_SALES_DW_TIMEOUT", "7s");
        env.put("SQLOOP_DATASOURCE_SALES_DW_CONNECT_TIMEOUT", "900ms");
        env.put("SQLOOP_DATASOURCE_SALES_DW_MODE", "explain");
        env.put("SQLOOP_DATASOURCE_SALES_DW_ALLOWED_CATALOGS", "tpch, memory");
        env.put("SQLOOP_DATASOURCE_SALES_DW_ALLOWED_SCHEMAS", "tiny");
        env.put("SQLOOP_DATASOURCE_SALES_DW_ALLOWED_TABLES", "Orders,tiny.lineitem");
        env.put("SQLOOP_DATASOURCE_SALES_DW_POOL_SIZE", "3");
        env.put("SQLOOP_DATASOURCE_SALES_DW_PROPERTY_SSL", "false");
        env.put("SQLOOP_DATASOURCE_DEMO_DIALECT", "duckdb");
        env.put("SQLOOP_DATASOURCE_DEMO_URL", "jdbc:duckdb:/tmp/demo.duckdb");
        env.put("SQLOOP_KAFKA_BOOTSTRAP_SERVERS", "localhost:9092");

        Datasources all = parse(env);

        assertEquals(Set.of("sales_dw", "demo"), all.names());
        DatasourceConfig dw = all.get("SALES_DW");
        assertEquals(Dialect.TRINO, dw.dialect());
        assertEquals("reader", dw.user());
        assertEquals("s3cret", dw.password());
        assertEquals(50, dw.rowLimit());
        assertEquals(Duration.ofSeconds(7), dw.queryTimeout());
        assertEquals(Duration.ofMillis(900), dw.connectTimeout());
        assertEquals(ValidationMode.EXPLAIN, dw.validationMode());
        assertEquals(Set.of("tpch", "memory"), dw.allowedCatalogs());
        assertEquals(3, dw.poolSize());
        assertEquals(Map.of("ssl", "false"), dw.properties());
        assertTrue(dw.tableAllowed("tpch", "tiny", "ORDERS"));
        assertTrue(dw.tableAllowed("tpch", "tiny", "lineitem"));
        assertFalse(dw.tableAllowed("tpch", "tiny", "customer"));
        assertFalse(dw.tableAllowed("tpch", "sf1", "orders"));
        assertFalse(dw.tableAllowed("system", "tiny", "orders"));

        DatasourceConfig demo = all.get("demo");
        assertEquals(DatasourceConfig.DEFAULT_ROW_LIMIT, demo.rowLimit());
        assertEquals(ValidationMode.LIMIT, demo.validationMode());
        assertTrue(demo.tableAllowed(null, "main", "anything"));
    }

    @Test
    void shouldNeverShowThePasswordInToString() {
        DatasourceConfig c = DatasourceConfig.of("pg", Dialect.POSTGRES,
                "jdbc:postgresql://h/db?user=u&password=hunter2", "u", "hunter2");
        assertFalse(c.toString().contains("hunter2"), c.toString());
        assertTrue(c.toString().contains("password=****"), c.toString());
        assertFalse(parse(Map.of("SQLOOP_DATASOURCE_A_DIALECT", "postgres", "SQLOOP_DATASOURCE_A_URL", "jdbc:postgresql://h/d",
                "SQLOOP_DATASOURCE_A_PASSWORD", "hunter2")).toString().contains("hunter2"));
    }

    @Test
    void shouldNameTheMissingUrl() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> parse(Map.of("SQLOOP_DATASOURCE_PG_DIALECT", "postgres")));
        assertTrue(e.getMessage().contains("SQLOOP_DATASOURCE_PG_URL"), e.getMessage());
    }

    @Test
    void shouldNameTheMissingDialect() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> parse(Map.of("SQLOOP_DATASOURCE_PG_URL", "jdbc:postgresql://h/d")));
        assertTrue(e.getMessage().contains("SQLOOP_DATASOURCE_PG_DIALECT"), e.getMessage());
    }

    @Test
    void shouldNameAnUnknownDialect() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> parse(Map.of("SQLOOP_DATASOURCE_PG_URL", "jdbc:x:y", "SQLOOP_DATASOURCE_PG_DIALECT", "oracle")));
        assertTrue(e.getMessage().startsWith("SQLOOP_DATASOURCE_PG_DIALECT"), e.getMessage());
    }

    @Test
    void shouldNameAMalformedValue() {
        Map<String, String> base = Map.of("SQLOOP_DATASOURCE_PG_URL", "jdbc:postgresql://h/d", "SQLOOP_DATASOURCE_PG_DIALECT", "postgres");
        for (String[] bad : new String[][] {{"_ROW_LIMIT", "many"}, {"_ROW_LIMIT", "0"}, {"_TIMEOUT", "soon"},
                {"_TIMEOUT", "500ms"}, {"_MODE", "dry-run"}, {"_POOL_SIZE", "-1"}, {"_CONNECT_TIMEOUT", "10ms"},
                {"_MEMORY_LIMIT", "1GB'; SET x"}, {"_MEMORY_LIMIT", "lots"}, {"_THREADS", "0"}, {"_TEMP_SIZE", "-5GB"},
                {"_REGEX", "maybe"}, {"_ISOLATION", "container"}, {"_PROCESS_MEMORY", "plenty"}, {"_PROCESS_MEMORY", "512MB"}}) {
            Map<String, String> env = new HashMap<>(base);
            env.put("SQLOOP_DATASOURCE_PG" + bad[0], bad[1]);
            ConfigException e = assertThrows(ConfigException.class, () -> parse(env), bad[0]);
            assertTrue(e.getMessage().contains("SQLOOP_DATASOURCE_PG" + bad[0]), e.getMessage());
        }
    }

    @Test
    void shouldReadTheSafeguardsWithSafeDefaults() {
        Map<String, String> env = new HashMap<>(Map.of("SQLOOP_DATASOURCE_DUCK_URL", "jdbc:duckdb:/x.db",
                "SQLOOP_DATASOURCE_DUCK_DIALECT", "duckdb", "SQLOOP_DATASOURCE_HS_URL", "jdbc:hive2://h:1/d",
                "SQLOOP_DATASOURCE_HS_DIALECT", "hive"));
        env.put("SQLOOP_DATASOURCE_HS_MEMORY_LIMIT", "512mb");
        env.put("SQLOOP_DATASOURCE_HS_THREADS", "3");
        env.put("SQLOOP_DATASOURCE_HS_TEMP_SIZE", "2GB");
        env.put("SQLOOP_DATASOURCE_HS_REGEX", "refused");
        Datasources all = parse(env);
        assertEquals(Safeguards.DEFAULTS, all.get("duck").safeguards());
        assertEquals(new Safeguards("512MB", 3, "2GB", "refused"), all.get("hs").safeguards());
        assertEquals("1GB", DuckDbReadOnly.properties(all.get("duck").safeguards()).get("memory_limit"));
        assertEquals("true", ReadOnlyJdbc.driverProperties(all.get("duck")).get("lock_configuration"));
        assertEquals("1", ReadOnlyJdbc.driverProperties(all.get("duck")).get("threads"));
    }

    @Test
    void shouldRunDuckDbInACappedChildProcessUnlessToldOtherwise() {
        Map<String, String> env = new HashMap<>(Map.of("SQLOOP_DATASOURCE_DUCK_URL", "jdbc:duckdb:/x.db",
                "SQLOOP_DATASOURCE_DUCK_DIALECT", "duckdb", "SQLOOP_DATASOURCE_BENCH_URL", "jdbc:duckdb:/y.db",
                "SQLOOP_DATASOURCE_BENCH_DIALECT", "duckdb", "SQLOOP_DATASOURCE_BIG_URL", "jdbc:duckdb:/z.db",
                "SQLOOP_DATASOURCE_BIG_DIALECT", "duckdb"));
        env.put("SQLOOP_DATASOURCE_BENCH_ISOLATION", "In-Process");
        env.put("SQLOOP_DATASOURCE_BIG_MEMORY_LIMIT", "2GiB");
        env.put("SQLOOP_DATASOURCE_BIG_PROCESS_MEMORY", "4GiB");
        Datasources all = parse(env);
        Safeguards duck = all.get("duck").safeguards();
        assertTrue(duck.processIsolation());
        assertEquals(1_000_000_000L + (long) (1.25 * (1L << 30)), duck.processMemoryBytes(), "memory_limit + the headroom");
        assertFalse(all.get("bench").safeguards().processIsolation());
        assertEquals(Safeguards.IN_PROCESS, all.get("bench").safeguards().isolation());
        assertEquals(4L << 30, all.get("big").safeguards().processMemoryBytes());
    }

    @Test
    void shouldRejectATypoInASettingName() {
        ConfigException e = assertThrows(ConfigException.class, () -> parse(Map.of(
                "SQLOOP_DATASOURCE_PG_URL", "jdbc:postgresql://h/d", "SQLOOP_DATASOURCE_PG_DIALECT", "postgres",
                "SQLOOP_DATASOURCE_PG_ROWLIMIT", "10")));
        assertTrue(e.getMessage().startsWith("SQLOOP_DATASOURCE_PG_ROWLIMIT"), e.getMessage());
    }

    @Test
    void shouldRejectANonJdbcUrl() {
        ConfigException e = assertThrows(ConfigException.class, () -> parse(Map.of(
                "SQLOOP_DATASOURCE_PG_URL", "postgresql://h/d", "SQLOOP_DATASOURCE_PG_DIALECT", "postgres")));
        assertTrue(e.getMessage().contains("SQLOOP_DATASOURCE_PG_URL"), e.getMessage());
    }

    @Test
    void shouldReadThePasswordFromAMountedSecret(@TempDir Path dir) throws Exception {
        Path secret = Files.writeString(dir.resolve("pw"), "from-file\n");
        DatasourceConfig c = parse(Map.of("SQLOOP_DATASOURCE_PG_URL", "jdbc:postgresql://h/d", "SQLOOP_DATASOURCE_PG_DIALECT",
                "postgres", "SQLOOP_DATASOURCE_PG_PASSWORD_FILE", secret.toString())).get("pg");
        assertEquals("from-file", c.password());
        ConfigException e = assertThrows(ConfigException.class, () -> parse(Map.of("SQLOOP_DATASOURCE_PG_URL", "jdbc:postgresql://h/d",
                "SQLOOP_DATASOURCE_PG_DIALECT", "postgres", "SQLOOP_DATASOURCE_PG_PASSWORD_FILE", dir.resolve("nope").toString())));
        assertTrue(e.getMessage().contains("SQLOOP_DATASOURCE_PG_PASSWORD_FILE"), e.getMessage());
    }

    @Test
    void shouldNameAnUnknownDatasourceOnLookup() {
        Datasources none = parse(Map.of());
        assertTrue(none.isEmpty());
        ConfigException e = assertThrows(ConfigException.class, () -> none.get("nope"));
        assertTrue(e.getMessage().contains("nope"));
    }

    @Test
    void shouldReadTheCostBudgetAndGuardNothingByDefault() {
        Map<String, String> env = new HashMap<>(Map.of("SQLOOP_DATASOURCE_PG_URL", "jdbc:postgresql://h/d",
                "SQLOOP_DATASOURCE_PG_DIALECT", "postgres", "SQLOOP_DATASOURCE_TR_URL", "jdbc:trino://h:8080/hive",
                "SQLOOP_DATASOURCE_TR_DIALECT", "trino"));
        env.put("SQLOOP_DATASOURCE_TR_MAX_SCAN_ROWS", "50_000_000");
        env.put("SQLOOP_DATASOURCE_TR_MAX_SCAN_BYTES", "200GB");
        env.put("SQLOOP_DATASOURCE_TR_MAX_COST", "1e12");
        env.put("SQLOOP_DATASOURCE_PG_MAX_SCAN_BYTES", "1048576");
        Datasources all = parse(env);
        assertEquals(new CostBudget(50_000_000L, 200_000_000_000L, 1e12), all.get("tr").safeguards().cost());
        assertEquals(new CostBudget(null, 1_048_576L, null), all.get("pg").safeguards().cost());
        assertTrue(all.get("pg").safeguards().cost().guarded());
        env.keySet().removeIf(k -> k.contains("_MAX_"));
        assertEquals(CostBudget.NONE, parse(env).get("tr").safeguards().cost());
        assertFalse(parse(env).get("tr").safeguards().cost().guarded(), "unset: no estimate is asked for, as before");
        for (String[] bad : new String[][] {{"_MAX_SCAN_ROWS", "lots"}, {"_MAX_SCAN_ROWS", "0"}, {"_MAX_SCAN_BYTES", "10 parsecs"},
                {"_MAX_COST", "-1"}, {"_MAX_COST", "cheap"}}) {
            Map<String, String> wrong = new HashMap<>(env);
            wrong.put("SQLOOP_DATASOURCE_TR" + bad[0], bad[1]);
            ConfigException e = assertThrows(ConfigException.class, () -> parse(wrong), bad[0]);
            assertTrue(e.getMessage().startsWith("SQLOOP_DATASOURCE_TR" + bad[0]), e.getMessage());
        }
    }
}
