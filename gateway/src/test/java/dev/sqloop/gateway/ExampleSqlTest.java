package dev.sqloop.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sqloop.common.Dialect;
import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.config.EnvConfig;
import dev.sqloop.parse.SqlCorpus;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The SQL of a posted example, checked by the validator's parser for the datasource's dialect: every write and evasion
 * of sql-parse's corpus is refused by {@code POST /v1/examples}'s validation, every legitimate query of its corpus accepted.
 */
class ExampleSqlTest {
    /** One datasource per dialect, named after it. */
    static final GatewayConfig CONFIG;

    static {
        Map<String, String> env = new HashMap<>(Map.of("SQLOOP_BOOTSTRAP_SERVERS", "127.0.0.1:1"));
        for (Dialect d : Dialect.values()) env.put("SQLOOP_DATASOURCE_" + d.name() + "_DIALECT", d.wireName());
        CONFIG = GatewayConfig.fromEnv(new EnvConfig(env));
    }

    private static String datasource(Dialect d) {
        return d.name().toLowerCase(Locale.ROOT);
    }

    /** A {@code POST /v1/examples} body as the endpoint validates it. */
    private static ExampleRequest post(Dialect dialect, String sql) {
        JsonNode body = JsonCodec.mapper().valueToTree(Map.of("question", "q", "datasource", datasource(dialect), "sql", sql));
        return ExampleRequest.parse(body, CONFIG);
    }

    static Stream<Arguments> evasions() {
        return SqlCorpus.load(SqlCorpus.EVASIONS).stream().map(c -> Arguments.of(c.dialect(), c.sql(), c.why()));
    }

    static Stream<Arguments> legitimate() {
        return SqlCorpus.load(SqlCorpus.LEGITIMATE).stream().map(c -> Arguments.of(c.dialect(), c.sql(), c.why()));
    }

    @ParameterizedTest(name = "[{index}] {0}: {2}")
    @MethodSource("evasions")
    void shouldRefuseEveryWriteAndEvasionOfTheCorpusAsAnExample(Dialect dialect, String sql, String why) {
        ApiError e = assertThrows(ApiError.class, () -> post(dialect, sql), () -> why + " was accepted as a " + dialect + " example: " + sql);
        assertEquals(400, e.status(), e::getMessage);
        assertEquals("sql", e.body().field(), e::getMessage);
    }

    @ParameterizedTest(name = "[{index}] {0}: {2}")
    @MethodSource("legitimate")
    void shouldAcceptEveryLegitimateQueryOfTheCorpusAsAnExample(Dialect dialect, String sql, String why) {
        assertEquals(sql.strip(), post(dialect, sql).sql());
    }

    @Test
    void shouldKeepTheCorpusLargeEnoughToMeanSomething() {
        assertTrue(evasions().count() >= 400, "evasion cases over all dialects: " + evasions().count());
        for (Dialect d : Dialect.values()) {
            assertTrue(SqlCorpus.load(SqlCorpus.EVASIONS).stream().filter(c -> c.dialect() == d).count() >= 40, d.wireName());
        }
    }

    /** The outside probe's example: a second statement after a comment the engine ends at {@code \r}; the lexical check passed it. */
    @Test
    void shouldRefuseTheStatementHiddenBehindACarriageReturnEndedComment() {
        for (Dialect d : Dialect.values()) {
            ApiError e = assertThrows(ApiError.class, () -> post(d, "SELECT 1 --\r; DROP TABLE orders"), d::wireName);
            assertEquals("sql", e.body().field());
            assertTrue(e.getMessage().startsWith("sql must be one read-only query in " + d.displayName() + ": "), e.getMessage());
        }
        for (String sql : List.of("SELECT 1 --\r\n; DROP TABLE orders", "SELECT 1 /* \r */; DROP TABLE orders", "SELECT 1 --\u2028; DROP TABLE orders")) {
            assertThrows(ApiError.class, () -> post(Dialect.DUCKDB, sql), sql);
        }
        // the comment itself is fine when nothing follows it
        assertEquals("SELECT 1 -- one", post(Dialect.DUCKDB, "SELECT 1 -- one\r\n").sql());
    }

    @Test
    void shouldGiveTheParsersReason() {
        ApiError drop = assertThrows(ApiError.class, () -> post(Dialect.TRINO, "DROP TABLE orders"));
        assertTrue(drop.getMessage().contains("read-only") && drop.getMessage().contains("DROP"), drop.getMessage());
        ApiError stacked = assertThrows(ApiError.class, () -> post(Dialect.POSTGRES, "SELECT 1; SELECT 2"));
        assertTrue(stacked.getMessage().contains("more than one statement"), stacked.getMessage());
        ApiError syntax = assertThrows(ApiError.class, () -> post(Dialect.DUCKDB, "SELEC 1"));
        assertEquals("sql", syntax.body().field(), syntax.getMessage());
    }

    @Test
    void shouldCheckInTheDatasourcesDialect() {
        // backticks quote names in Spark SQL and Hive; in Trino they are not SQL at all
        String backticks = "SELECT `o_orderkey` FROM orders";
        assertEquals(backticks, post(Dialect.SPARKSQL, backticks).sql());
        assertThrows(ApiError.class, () -> post(Dialect.TRINO, backticks));
    }
}
