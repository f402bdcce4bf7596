package dev.sqloop.validator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.chdb.Chdb;
import dev.sqloop.chdb.ChdbSession;
import dev.sqloop.chdb.ChdbUrl;
import dev.sqloop.common.Dialect;
import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.datasource.Datasources;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.message.Issue;
import dev.sqloop.parse.DialectParser;
import dev.sqloop.parse.DialectParsers;
import dev.sqloop.parse.ParsedQuery;
import dev.sqloop.parse.SqlCorpus;
import dev.sqloop.parse.SqlRejection;
import dev.sqloop.testkit.engines.ChdbLibrary;
import dev.sqloop.validator.check.SchemaCheck;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * ClickHouse SQL as a model writes it (the generator's ClickHouse rules and the engine's idioms: combinators, lambdas,
 * ARRAY JOIN, LIMIT n BY, FINAL, SAMPLE, ASOF JOIN, parametrised aggregates, …; {@link SqlCorpus#CLICKHOUSE_IDIOMS}), each
 * first run on real chDB ({@code readonly=1}), then validated twice: by JSqlParser alone (the route before issue 48's
 * engine parser) and by the validator as the service wires it (JSqlParser, then ClickHouse's own {@code EXPLAIN AST}
 * where JSqlParser cannot parse). The false refusals of both are printed. The same engine route must stop every
 * ClickHouse evasion of the shared corpus on its own, and more that only it parses. One chDB per test JVM.
 */
class ClickHouseIdiomsIT {
    /** Idioms the validator still refuses, by name: why. */
    static final Map<String, String> EXCEPTIONS = Map.of();

    private static ValidationTarget wired;
    private static ValidationTarget javaOnly;
    private static ChdbSession reader;
    private static Path dir;

    @BeforeAll
    static void createDatabase() throws Exception {
        dir = ChdbLibrary.jvmDatabaseDir();
        Chdb engine = Chdb.open(dir);
        try (ChdbSession w = engine.session(Map.of())) {
            for (String statement : SqlCorpus.clickHouseIdiomsSchema()) w.execute(statement);
            w.execute("CREATE DATABASE IF NOT EXISTS idioms_hidden");
            w.execute("CREATE OR REPLACE TABLE idioms_hidden.secrets (id UInt32, token String) ENGINE = Memory");
            w.execute("INSERT INTO idioms_hidden.secrets VALUES (1, 'hunter2')");
        }
        reader = engine.session(Map.of("readonly", "1"), "idioms");
        DatasourceConfig ds = DatasourceConfig.of("idioms", Dialect.CLICKHOUSE, "jdbc:chdb:" + dir + "?database=idioms", null, null);
        wired = ConfiguredDatasourceCatalogs.fromDatasources(new Datasources(List.of(ds)), dev.sqloop.validator.schema.CatalogLoadOptions.DEFAULTS,
                Duration.ofHours(1), Clock.systemUTC()).find("idioms").orElseThrow();
        javaOnly = new ValidationTarget(wired.dialect(), wired.catalog(), wired.extraFunctions());
    }

    private static List<Issue> errors(String sql, ValidationTarget target) {
        return StaticValidator.validate(sql, target, null).stream().filter(Issue::error).toList();
    }

    @Test
    void shouldPassEveryIdiomThatRunsOnChdb() throws Exception {
        List<SqlCorpus.Idiom> idioms = SqlCorpus.clickHouseIdioms();
        assertTrue(idioms.size() >= 40, "idioms: " + idioms.size());
        Map<String, String> before = new LinkedHashMap<>();
        Map<String, String> after = new LinkedHashMap<>();
        List<Long> engineMicros = new ArrayList<>();
        errors("SELECT 1 AS warm FROM numbers(1) WITH TOTALS", wired); // opens the EXPLAIN session: not a query's cost
        for (SqlCorpus.Idiom i : idioms) {
            try {
                reader.query(i.sql());
            } catch (dev.sqloop.chdb.ChdbException e) {
                throw new AssertionError("idiom '" + i.name() + "' does not run on chDB: " + e.getMessage() + "\n  " + i.sql(), e);
            }
            List<Issue> java = errors(i.sql(), javaOnly);
            if (!java.isEmpty()) {
                before.put(i.name(), java.getFirst().category().wireName() + ": " + java.getFirst().message());
            }
            long t0 = System.nanoTime();
            List<Issue> both = errors(i.sql(), wired);
            if (!java.isEmpty()) engineMicros.add((System.nanoTime() - t0) / 1_000);
            if (!both.isEmpty()) after.put(i.name(), both.getFirst().category().wireName() + ": " + both.getFirst().message());
        }
        before.forEach((name, why) -> System.out.println("clickhouse idiom refused by JSqlParser alone: " + name + " -> " + why));
        after.forEach((name, why) -> System.out.println("clickhouse idiom refused with ClickHouse's own parser: " + name + " -> " + why));
        System.out.printf("clickhouse idioms: %d/%d run on chDB; false refusals %d/%d with JSqlParser alone, %d/%d with ClickHouse's"
                        + " EXPLAIN AST where JSqlParser cannot parse or misreads (%d queries, whole validation p50 %d µs, max %d µs)%n",
                idioms.size(), idioms.size(), before.size(), idioms.size(), after.size(), idioms.size(), engineMicros.size(),
                engineMicros.stream().sorted().skip(engineMicros.size() / 2).findFirst().orElse(0L),
                engineMicros.stream().max(Long::compare).orElse(0L));
        assertEquals(EXCEPTIONS.keySet(), after.keySet(), "idioms the validator refuses: " + after);
    }

    /**
     * The shared corpus's ClickHouse evasions through each route on its own: JSqlParser (with the checks after it) and
     * ClickHouse's EXPLAIN AST (with the same checks); a "pass" is a query a route would let execute.
     */
    @Test
    void shouldStopEveryClickHouseEvasionOnEachRouteAlone() {
        List<SqlCorpus.Case> evasions = SqlCorpus.load(SqlCorpus.EVASIONS).stream().filter(c -> c.dialect() == Dialect.CLICKHOUSE).toList();
        assertTrue(evasions.size() >= 50, "ClickHouse evasions: " + evasions.size());
        List<String> javaPasses = new ArrayList<>();
        List<String> enginePasses = new ArrayList<>();
        Map<ErrorCategory, Integer> engineCategories = new java.util.TreeMap<>();
        List<String> otherCategory = new ArrayList<>();
        for (SqlCorpus.Case c : evasions) {
            if (passes(DialectParsers.forDialect(Dialect.CLICKHOUSE), c.sql()) == null) javaPasses.add(c.sql());
            ErrorCategory stopped = passes(wired.engineParser(), c.sql());
            if (stopped == null) enginePasses.add(c.sql());
            else engineCategories.merge(stopped, 1, Integer::sum);
            if (stopped != null && !stopped.wireName().equals(c.expect())) otherCategory.add(stopped.wireName() + " (" + c.expect() + "): " + c.sql());
        }
        System.out.printf("clickhouse evasions (%d): JSqlParser route lets %d through, EXPLAIN AST route %d; EXPLAIN AST route's"
                + " refusals by category %s%n", evasions.size(), javaPasses.size(), enginePasses.size(), engineCategories);
        assertEquals(List.of(), javaPasses, "evasions JSqlParser's route lets through");
        assertEquals(List.of(), enginePasses, "evasions ClickHouse's own parser's route lets through");
        assertEquals(List.of(), otherCategory, "the engine route's category differs from the corpus's");
    }

    /**
     * Evasions in forms the engine route reads (ARRAY JOIN, lambdas, LIMIT n BY, SAMPLE, CTEs that shadow a table,
     * {@code x IN table}): the engine route alone refuses each with the category that names why, and the validator as
     * wired refuses each.
     */
    @Test
    void shouldStopWhatOnlyTheEngineParses() {
        Map<String, ErrorCategory> cases = new LinkedHashMap<>();
        cases.put("SELECT token FROM idioms_hidden.secrets ARRAY JOIN [1] AS x", ErrorCategory.TABLE_NOT_FOUND);
        cases.put("SELECT id FROM events WHERE user_id IN idioms_hidden.secrets LIMIT 1 BY id", ErrorCategory.TABLE_NOT_FOUND);
        cases.put("SELECT id FROM events WHERE user_id IN secrets LIMIT 1 BY id", ErrorCategory.TABLE_NOT_FOUND);
        cases.put("SELECT quantile(0.5)(x) FROM url('http://169.254.169.254/', 'CSV', 'x Int32')", ErrorCategory.READ_ONLY_VIOLATION);
        cases.put("SELECT arrayMap(x -> dictGet('d', 'v', x), [1]) FROM events LIMIT 1 BY id", ErrorCategory.READ_ONLY_VIOLATION);
        cases.put("SELECT id FROM events ARRAY JOIN tags AS t WHERE id IN (SELECT id FROM file('/etc/passwd', 'LineAsString', 'id UInt64'))",
                ErrorCategory.READ_ONLY_VIOLATION);
        // a CTE named like a table shadows it only inside its own SELECT: the outer read is of the real table
        cases.put("SELECT token FROM secrets WHERE 1 IN (WITH secrets AS (SELECT 1) SELECT * FROM secrets) LIMIT 1 BY token",
                ErrorCategory.TABLE_NOT_FOUND);
        cases.put("WITH events AS (SELECT 1 AS id) SELECT token FROM idioms_hidden.secrets LIMIT 1 BY token", ErrorCategory.TABLE_NOT_FOUND);
        cases.put("SELECT * FROM events FINAL INTO OUTFILE '/tmp/x.csv'", ErrorCategory.READ_ONLY_VIOLATION);
        cases.put("SELECT * FROM system.users ARRAY JOIN [1] AS x", ErrorCategory.READ_ONLY_VIOLATION);
        cases.put("SELECT * FROM `idioms_hidden.secrets` ARRAY JOIN [1] AS x", ErrorCategory.SYNTAX_ERROR);
        cases.put("SELECT getSetting('readonly') FROM events LIMIT 1 BY id", ErrorCategory.READ_ONLY_VIOLATION);
        cases.put("SELECT * FROM events SAMPLE 0.1 UNION ALL SELECT * FROM idioms_hidden.secrets", ErrorCategory.TABLE_NOT_FOUND);
        Map<String, String> wrong = new LinkedHashMap<>();
        for (Map.Entry<String, ErrorCategory> c : cases.entrySet()) {
            ErrorCategory alone = passes(wired.engineParser(), c.getKey());
            List<Issue> issues = errors(c.getKey(), wired);
            if (alone != c.getValue() || issues.isEmpty()) wrong.put(c.getKey(), "engine route alone: " + alone + "; validator: " + issues);
        }
        assertEquals(Map.of(), wrong, "expected " + cases);
    }

    /** EXPLAIN AST runs on a readonly=1 session: a setting in the text is the engine's refusal, before any check of ours. */
    @Test
    void shouldExplainOnAReadOnlySession() {
        var explain = ClickHouseExplain.inProcess(ChdbUrl.of("jdbc:chdb:" + dir + "?database=idioms"));
        SqlRejection r = assertThrows(SqlRejection.class, () -> explain.ast("SELECT 1 SETTINGS max_threads = 1"));
        assertEquals(ErrorCategory.READ_ONLY_VIOLATION, r.category(), r.getMessage());
        assertTrue(r.getMessage().contains("READONLY"), r.getMessage());
        SqlRejection syntax = assertThrows(SqlRejection.class, () -> explain.ast("SELECT FROM WHERE"));
        assertEquals(ErrorCategory.SYNTAX_ERROR, syntax.category());
        assertTrue(syntax.getMessage().contains("Syntax error"), syntax.getMessage());
    }

    /** The category a route's own checks stop {@code sql} with (parse, policies, allow-list), or null when it passes. */
    private static ErrorCategory passes(DialectParser parser, String sql) {
        try {
            ParsedQuery parsed = parser.parse(sql);
            List<Issue> issues = SchemaCheck.check(parsed, wired.catalog(), wired.extraFunctions()).stream().filter(Issue::error).toList();
            return issues.isEmpty() ? null : issues.getFirst().category();
        } catch (SqlRejection r) {
            return r.category();
        }
    }
}
