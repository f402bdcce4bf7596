package dev.sqloop.validator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.datasource.Datasources;
import dev.sqloop.common.message.Issue;
import dev.sqloop.testkit.engines.DefogDatasets;
import dev.sqloop.testkit.engines.DefogQuestions;
import dev.sqloop.testkit.engines.PostgresServer;
import dev.sqloop.testkit.engines.TrinoServer;
import dev.sqloop.validator.schema.CatalogLoadOptions;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The 120 defog gold queries through the real validator — dialect parser, read-only check, schema check against
 * catalogs loaded from the real engines — on PostgreSQL (their own dialect), DuckDB and Trino (translated). A validator that refuses
 * correct SQL blocks it on every attempt, so every refusal must be a listed, explained exception.
 */
class DefogGoldValidationIT {

    /** Gold queries the validator refuses on PostgreSQL, by question index: category, then why. */
    static final Map<Integer, String> POSTGRES_EXCEPTIONS = Map.of();
    /** Gold queries the validator refuses on DuckDB, by question index: category, then why. */
    static final Map<Integer, String> DUCKDB_EXCEPTIONS = Map.of(
            58, "unsupported_function: to_char(…, 'HH24:MI') is PostgreSQL's formatting function; DuckDB has strftime"
                    + " (the executor refuses it on DuckDB too: DefogGoldIT)");

    /**
     * Gold queries (translated to Trino's dialect by testkit's PostgresToTrinoQuery) the validator refuses on Trino,
     * by question index: category, then why.
     */
    static final Map<Integer, String> TRINO_EXCEPTIONS = Map.of();

    @Test
    void shouldPassTheGoldSqlOnPostgres() {
        PostgresServer pg = PostgresServer.shared();
        List<DatasourceConfig> configs = new ArrayList<>();
        for (String db : DefogDatasets.DATABASES) {
            DefogDatasets.loadIntoPostgres(pg, db);
            configs.add(DatasourceConfig.of(db, Dialect.POSTGRES, pg.jdbcUrl(db), PostgresServer.READER, PostgresServer.READER_PASSWORD));
        }
        check("postgres", configs, POSTGRES_EXCEPTIONS);
    }

    @Test
    void shouldPassTheGoldSqlOnDuckDb(@TempDir Path dir) throws Exception {
        List<DatasourceConfig> configs = new ArrayList<>();
        for (String db : DefogDatasets.DATABASES) {
            Path file = DefogDatasets.loadIntoDuckDb(db, dir.resolve(db + ".duckdb"));
            configs.add(DatasourceConfig.of(db, Dialect.DUCKDB, "jdbc:duckdb:" + file, null, null));
        }
        check("duckdb", configs, DUCKDB_EXCEPTIONS);
    }

    /**
     * Trino's parser and a catalog loaded from the real Trino's memory catalog (one datasource per defog schema).
     * Verbatim PostgreSQL is mostly not Trino SQL (the count is printed); the translation must pass.
     */
    @Test
    void shouldPassTheTranslatedGoldSqlOnTrino() {
        TrinoServer trino = TrinoServer.shared();
        DefogDatasets.loadIntoTrino(trino);
        List<DatasourceConfig> configs = new ArrayList<>();
        for (String db : DefogDatasets.DATABASES) {
            configs.add(DatasourceConfig.of(db, Dialect.TRINO, trino.jdbcUrl("memory", db), "sqloop", null));
        }
        DatasourceCatalogs catalogs = ConfiguredDatasourceCatalogs.fromDatasources(new Datasources(configs),
                CatalogLoadOptions.DEFAULTS, Duration.ofHours(1), Clock.systemUTC());
        int verbatim = 0;
        for (DefogQuestions.Question q : DefogQuestions.load()) {
            if (StaticValidator.validate(q.firstGold(), catalogs.find(q.database()).orElseThrow(), null).isEmpty()) verbatim++;
        }
        System.out.printf("trino: validator passed %d/120 gold queries verbatim%n", verbatim);
        check("trino", catalogs, TRINO_EXCEPTIONS, q -> DefogDatasets.trinoQuery(q.database(), q.firstGold()));
    }

    private static void check(String engine, List<DatasourceConfig> configs, Map<Integer, String> exceptions) {
        DatasourceCatalogs catalogs = ConfiguredDatasourceCatalogs.fromDatasources(new Datasources(configs),
                CatalogLoadOptions.DEFAULTS, Duration.ofHours(1), Clock.systemUTC());
        check(engine, catalogs, exceptions, DefogQuestions.Question::firstGold);
    }

    private static void check(String engine, DatasourceCatalogs catalogs, Map<Integer, String> exceptions,
                              java.util.function.Function<DefogQuestions.Question, String> sql) {
        List<DefogQuestions.Question> questions = DefogQuestions.load();
        assertEquals(120, questions.size());
        Map<Integer, String> refused = new TreeMap<>();
        for (DefogQuestions.Question q : questions) {
            ValidationTarget target = catalogs.find(q.database()).orElseThrow();
            List<Issue> issues = StaticValidator.validate(sql.apply(q), target, null);
            if (!issues.isEmpty()) {
                Issue i = issues.getFirst();
                refused.put(q.index(), i.category().wireName() + ": " + i.message().lines().findFirst().orElse(""));
            }
        }
        refused.forEach((i, why) -> System.out.println(engine + " gold #" + i + " refused: " + why + "\n    " + sql.apply(questions.get(i))));
        double passRate = 1.0 - (double) refused.size() / questions.size();
        System.out.printf("%s: validator passed %d/%d gold queries (%.1f %%)%n", engine, questions.size() - refused.size(),
                questions.size(), 100 * passRate);
        assertEquals(exceptions.keySet(), refused.keySet(), engine + ": refusals other than the listed exceptions: " + refused);
        exceptions.forEach((i, why) -> assertTrue(refused.get(i).startsWith(why.substring(0, why.indexOf(':') + 1)),
                engine + " gold #" + i + " refused as " + refused.get(i) + ", expected " + why));
        assertTrue(passRate >= 0.95, engine + " pass rate " + passRate);
    }
}
