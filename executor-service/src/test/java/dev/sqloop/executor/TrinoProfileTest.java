package dev.sqloop.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.zaxxer.hikari.HikariConfig;
import dev.sqloop.common.Dialect;
import dev.sqloop.common.datasource.DatasourceConfig;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TrinoProfileTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "TRINO|jdbc:trino://h:8080/tpch/tiny|io.trino.jdbc.TrinoDriver|source",
            "PRESTO|jdbc:presto://h:8080/tpch/tiny|com.facebook.presto.jdbc.PrestoDriver|applicationNamePrefix"})
    void shouldConfigureEachDriverWithItsOwnClientNameProperty(Dialect dialect, String url, String driver, String clientName) {
        HikariConfig pool = new HikariConfig();
        DatasourceConfig ds = DatasourceConfig.of("wh", dialect, url, null, "").withLimits(10, Duration.ofSeconds(30));
        EngineProfile profile = EngineProfile.forDialect(dialect);
        profile.configure(pool, ds);
        assertEquals(driver, pool.getDriverClassName());
        assertEquals("sqloop", pool.getUsername());
        assertNull(pool.getPassword(), "an empty password is not passed (the drivers refuse one without TLS)");
        assertEquals("sqloop-executor", pool.getDataSourceProperties().getProperty(clientName));
        assertEquals(1, pool.getDataSourceProperties().stringPropertyNames().stream()
                .filter(p -> p.equals("source") || p.equals("applicationNamePrefix")).count(), "one client name, the driver's");
        assertEquals("query_max_run_time:31s", pool.getDataSourceProperties().getProperty("sessionProperties"));
        assertEquals("SELECT 1", profile.limited("SELECT 1", 5), "no LIMIT wrapper: it would drop the ORDER BY");
        assertEquals("EXPLAIN (TYPE VALIDATE) SELECT 1", profile.explain("SELECT 1"));
        assertEquals(TrinoErrors.class, profile.errors().getClass());
    }

    @ParameterizedTest
    @CsvSource({"HIVE", "DUCKDB"})
    void shouldRefuseOtherDialects(Dialect dialect) {
        assertThrows(IllegalArgumentException.class, () -> new TrinoProfile(dialect));
    }
}
