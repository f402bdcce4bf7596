package dev.sqloop.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.parse.SqlCorpus;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The validator's whole evasion corpus through the executor alone (guard + its own parse): every variant is
 * refused before a connection is asked for. The datasources point nowhere, so a variant that got through would
 * surface as an InfrastructureException instead of a refusal.
 */
class ExecutorCorpusTest {
    private static final Set<ErrorCategory> STOPPED = Set.of(ErrorCategory.READ_ONLY_VIOLATION, ErrorCategory.SYNTAX_ERROR,
            ErrorCategory.TIMEOUT);
    private static final ReadOnlyExecutor EXECUTOR = new ReadOnlyExecutor();

    static Stream<Arguments> evasions() {
        return SqlCorpus.load(SqlCorpus.EVASIONS).stream().map(c -> Arguments.of(c.dialect(), c.sql(), c.why()));
    }

    static DatasourceConfig nowhere(Dialect d) {
        String url = switch (d) {
            case DUCKDB -> "jdbc:duckdb:/nonexistent/sqloop-corpus.duckdb";
            case POSTGRES -> "jdbc:postgresql://127.0.0.1:1/none";
            case TRINO -> "jdbc:trino://127.0.0.1:1/memory/default";
            case PRESTO -> "jdbc:presto://127.0.0.1:1/memory/default";
            case HIVE, SPARKSQL -> "jdbc:hive2://127.0.0.1:1/default";
            case CLICKHOUSE -> "jdbc:clickhouse://127.0.0.1:1/default";
        };
        return DatasourceConfig.of("corpus_" + d.wireName(), d, url, "u", null)
                .withPool(1, java.time.Duration.ofMillis(250));
    }

    @AfterAll
    static void close() {
        EXECUTOR.close();
    }

    @ParameterizedTest(name = "[{index}] {0}: {2}")
    @MethodSource("evasions")
    void shouldStopEveryCorpusVariantWithoutTheValidator(Dialect dialect, String sql, String why) {
        QueryRunner.Result r = EXECUTOR.run(nowhere(dialect), sql);
        QueryRunner.Failed f = assertInstanceOf(QueryRunner.Failed.class, r, () -> why + ": " + sql);
        assertTrue(STOPPED.contains(f.error().category()), () -> f.error().toString());
        assertTrue(f.error().message().startsWith("refused by the executor"), f.error().message());
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT * FROM secrets",
            "SELECT * FROM orders o JOIN secrets s ON true",
            "SELECT * FROM public.secrets",
            "SELECT * FROM other.public.orders",
            "SELECT * FROM orders WHERE o_orderkey IN (SELECT id FROM secrets)",
            "SELECT * FROM orders, LATERAL (SELECT * FROM secrets) x",
            "WITH s AS (SELECT * FROM secrets) SELECT * FROM s",
            "SELECT (SELECT max(id) FROM secrets)"})
    void shouldEnforceTheAllowListOnItsOwnParse(String sql) {
        DatasourceConfig ds = nowhere(Dialect.POSTGRES).withAllowed(Set.of("sqloop"), Set.of("public"), Set.of("orders"));
        QueryRunner.Failed f = assertInstanceOf(QueryRunner.Failed.class, EXECUTOR.run(ds, sql), sql);
        assertEquals(ErrorCategory.TABLE_NOT_FOUND, f.error().category(), f.error().toString());
    }

    @Test
    void shouldEnforceTheAllowListInsideTrinoTableFunctions() {
        DatasourceConfig ds = nowhere(Dialect.TRINO).withAllowed(Set.of("memory"), Set.of(), Set.of("orders"));
        for (String sql : List.of(
                "SELECT * FROM TABLE(exclude_columns(input => TABLE(secret), columns => DESCRIPTOR(id)))",
                "SELECT * FROM TABLE(exclude_columns(input => TABLE(SELECT * FROM secret), columns => DESCRIPTOR(id)))",
                "SELECT * FROM tpch.tiny.orders")) {
            QueryRunner.Failed f = assertInstanceOf(QueryRunner.Failed.class, EXECUTOR.run(ds, sql), sql);
            assertEquals(ErrorCategory.TABLE_NOT_FOUND, f.error().category(), f.error().toString());
        }
    }

    @Test
    void shouldRefuseTextItCannotParseWhenThereIsAnAllowList() {
        DatasourceConfig ds = nowhere(Dialect.POSTGRES).withAllowed(Set.of(), Set.of(), Set.of("orders"));
        QueryRunner.Failed f = assertInstanceOf(QueryRunner.Failed.class, EXECUTOR.run(ds, "SELECT * FROM orders WHERE"));
        assertEquals(ErrorCategory.SYNTAX_ERROR, f.error().category());
    }
}
