package dev.sqloop.validator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.message.Issue;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.common.message.TokenUsage;
import dev.sqloop.common.runtime.InfrastructureException;
import dev.sqloop.common.runtime.Outcome;
import dev.sqloop.validator.schema.CachedSchemaCatalog;
import dev.sqloop.validator.schema.CatalogLoadOptions;
import dev.sqloop.validator.schema.JdbcSchemaCatalogLoader;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The stage wired as a service would wire it: a configured datasource whose catalog is loaded from real DuckDB. */
class StaticValidateStageIT {
    @TempDir
    static Path dir;
    private static String url;

    @BeforeAll
    static void createDatabase() throws Exception {
        url = "jdbc:duckdb:" + dir.resolve("stage.duckdb");
        try (Connection c = DriverManager.getConnection(url); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE products (sku VARCHAR, category VARCHAR, price DECIMAL(10, 2))");
            st.execute("INSERT INTO products VALUES ('a1', 'books', 10), ('b2', 'games', 30), ('c3', 'books', 12)");
        }
    }

    private static CachedSchemaCatalog cached(String jdbcUrl) {
        return new CachedSchemaCatalog(() -> {
            try (Connection c = DriverManager.getConnection(jdbcUrl)) {
                return new JdbcSchemaCatalogLoader(Dialect.DUCKDB, CatalogLoadOptions.DEFAULTS).load(c);
            }
        }, Duration.ofMinutes(10), Clock.systemUTC());
    }

    private static Outcome.Send validate(String sql) {
        StaticValidateStage stage = new StaticValidateStage(new ConfiguredDatasourceCatalogs(
                Map.of("shop", new ConfiguredDatasourceCatalogs.Entry(Dialect.DUCKDB, cached(url)))), Clock.systemUTC());
        QuestionTask task = QuestionTask.create("q-1", "t", "shop", "books under 20", 3, Instant.now()).withSql(sql, TokenUsage.ZERO);
        return (Outcome.Send) stage.process(task);
    }

    @Test
    void shouldForwardAQueryMatchingTheRealSchema() {
        Outcome.Send out = validate("SELECT sku, price FROM products WHERE category = 'books' AND price < 20");
        assertEquals(Topics.EXECUTE.name(), out.emissions().getFirst().topic());
    }

    @Test
    void shouldRepairAMisspeltCategoryWithTheRealValues() {
        Outcome.Send out = validate("SELECT sku FROM products WHERE category = 'book'");
        assertEquals(Topics.REPAIR_FEEDBACK.name(), out.emissions().getFirst().topic());
        Issue issue = ((QuestionTask) out.emissions().getFirst().message()).issues().getFirst();
        assertEquals(ErrorCategory.CONSTRAINT_VIOLATION, issue.category());
        assertEquals(List.of("books"), issue.candidates());
    }

    @Test
    void shouldTurnAnUnreachableWarehouseIntoAnInfrastructureFailure() {
        // A database in a directory that does not exist cannot be opened: the runner retries, it is never an attempt.
        CachedSchemaCatalog broken = cached("jdbc:duckdb:" + dir.resolve("no/such/dir/x.duckdb"));
        assertThrows(InfrastructureException.class, broken::get);
    }
}
