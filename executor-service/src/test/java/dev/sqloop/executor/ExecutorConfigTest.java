package dev.sqloop.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.config.ConfigException;
import dev.sqloop.common.config.EnvConfig;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ExecutorConfigTest {

    @Test
    void shouldReadDatasourcesAndKafka() {
        ExecutorConfig c = ExecutorConfig.fromEnv(new EnvConfig(Map.of("SQLOOP_BOOTSTRAP_SERVERS", "localhost:9092",
                "SQLOOP_DATASOURCE_DEMO_DIALECT", "duckdb", "SQLOOP_DATASOURCE_DEMO_URL", "jdbc:duckdb:/tmp/demo.duckdb")));
        assertEquals("sqloop-execute", c.runner().groupId());
        assertTrue(c.datasources().find("demo").isPresent());
    }

    @Test
    void shouldBreakTiesOnlyWhereADatasourceAsksForIt() {
        ExecutorConfig c = ExecutorConfig.fromEnv(new EnvConfig(Map.of("SQLOOP_BOOTSTRAP_SERVERS", "localhost:9092",
                "SQLOOP_DATASOURCE_DEMO_DIALECT", "duckdb", "SQLOOP_DATASOURCE_DEMO_URL", "jdbc:duckdb:/tmp/demo.duckdb",
                "SQLOOP_DATASOURCE_SALES_DIALECT", "duckdb", "SQLOOP_DATASOURCE_SALES_URL", "jdbc:duckdb:/tmp/sales.duckdb",
                "SQLOOP_DATASOURCE_SALES_TIE_BREAK", "true")));
        assertEquals(java.util.Set.of("sales"), c.tieBreak(), "off by default: a tie-break costs LLM calls");
        ConfigException e = assertThrows(ConfigException.class, () -> ExecutorConfig.fromEnv(new EnvConfig(Map.of(
                "SQLOOP_BOOTSTRAP_SERVERS", "localhost:9092", "SQLOOP_DATASOURCE_DEMO_DIALECT", "duckdb",
                "SQLOOP_DATASOURCE_DEMO_URL", "jdbc:duckdb:/tmp/demo.duckdb", "SQLOOP_DATASOURCE_DEMO_TIE_BREAK", "maybe"))));
        assertTrue(e.getMessage().contains("SQLOOP_DATASOURCE_DEMO_TIE_BREAK"), e.getMessage());
    }

    @Test
    void shouldRequireADatasource() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> ExecutorConfig.fromEnv(new EnvConfig(Map.of("SQLOOP_BOOTSTRAP_SERVERS", "localhost:9092"))));
        assertTrue(e.getMessage().contains("SQLOOP_DATASOURCE_"), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"sparksql", "hive"})
    void shouldAcceptTheHiveServer2Dialects(String dialect) {
        ExecutorConfig c = ExecutorConfig.fromEnv(new EnvConfig(Map.of("SQLOOP_BOOTSTRAP_SERVERS", "localhost:9092",
                "SQLOOP_DATASOURCE_LAKE_DIALECT", dialect, "SQLOOP_DATASOURCE_LAKE_URL", "jdbc:hive2://h:10000/default")));
        assertTrue(c.datasources().find("lake").isPresent());
    }

    @Test
    void shouldAcceptAPrestoDatasourceThroughPrestoJdbc() {
        ExecutorConfig c = ExecutorConfig.fromEnv(new EnvConfig(Map.of("SQLOOP_BOOTSTRAP_SERVERS", "localhost:9092",
                "SQLOOP_DATASOURCE_WH_DIALECT", "presto", "SQLOOP_DATASOURCE_WH_URL", "jdbc:presto://presto:8080/hive/default")));
        assertTrue(c.datasources().find("wh").isPresent());
        com.zaxxer.hikari.HikariConfig pool = new com.zaxxer.hikari.HikariConfig();
        EngineProfile.forDialect(dev.sqloop.common.Dialect.PRESTO).configure(pool, c.datasources().find("wh").orElseThrow());
        assertEquals("com.facebook.presto.jdbc.PrestoDriver", pool.getDriverClassName());
        assertEquals("sqloop", pool.getUsername());
    }
}
