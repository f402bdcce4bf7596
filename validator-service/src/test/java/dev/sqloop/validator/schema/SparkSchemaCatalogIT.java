package dev.sqloop.validator.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.datasource.ReadOnlyJdbc;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.message.Issue;
import dev.sqloop.common.message.NlConstraints;
import dev.sqloop.testkit.engines.SparkThriftServer;
import dev.sqloop.validator.StaticValidator;
import dev.sqloop.parse.ObjectName;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The catalog loaded from a real Spark Thrift Server 3.5.4 (the shared checks are in
 * {@link HiveServer2SchemaCatalogIT}). Spark's own here: temporary views in SHOW TABLES, its functions (with
 * {@code date_trunc}, without {@code strftime}), and queries the validator passes that Spark runs.
 */
class SparkSchemaCatalogIT extends HiveServer2SchemaCatalogIT {
    private final SparkThriftServer spark = SparkThriftServer.shared();

    SparkSchemaCatalogIT() {
        super(Dialect.SPARKSQL);
    }

    @Override
    Connection admin() throws SQLException {
        return spark.connect("default");
    }

    @Override
    String jdbcUrl(String database) {
        return spark.jdbcUrl(database);
    }

    @Override
    Path dataDir() {
        return spark.dataDir();
    }

    @Test
    void shouldLeaveOutTemporaryViews() throws SQLException {
        try (Connection c = ReadOnlyJdbc.open(ds); Statement st = c.createStatement()) {
            // Spark lists a session's temporary views in every SHOW TABLES: another session cannot query them
            st.execute("CREATE TEMPORARY VIEW scratch_view AS SELECT 1 AS x");
            SchemaCatalog withView = new JdbcSchemaCatalogLoader(Dialect.SPARKSQL, new CatalogLoadOptions(List.of(), Set.of(), Set.of(), 0, 0)).load(c);
            assertTrue(withView.resolve(ObjectName.of("scratch_view")).isEmpty(), "temporary view left out");
            assertEquals(4, withView.tables().size());
        }
    }

    @Test
    void shouldLoadSparksFunctions() {
        assertTrue(catalog.functions().containsAll(Set.of("count", "sum", "date_trunc", "date_format", "to_char", "datediff",
                "any_value", "percentile_approx", "explode")), () -> "functions: " + catalog.functions().size());
        assertFalse(catalog.functions().contains("strftime"), "DuckDB's, not Spark's");
        assertTrue(catalog.functions().size() > 300, "functions: " + catalog.functions().size());
    }

    @Test
    void shouldReportAFunctionSparkDoesNotHave() {
        Issue issue = single(StaticValidator.validate("SELECT strftime(sbCustJoinDate, '%Y') FROM sbCustomer", target, null));
        assertEquals(ErrorCategory.UNSUPPORTED_FUNCTION, issue.category());
        assertEquals("strftime", issue.identifier());
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT sbTickerSymbol, max(sbDpClose) AS top FROM sbDailyPrice p JOIN sbTicker t ON p.sbDpTickerId = t.sbTickerId GROUP BY sbTickerSymbol",
            "SELECT date_format(sbTxDateTime, 'yyyy-MM') AS m, count(*) FROM sbTransaction GROUP BY 1 ORDER BY 1",
            "SELECT `sbCustName` FROM broker.sbCustomer WHERE sbCustStatus = 'active' LIMIT 3"})
    void shouldPassQueriesSparkItselfRuns(String sql) throws SQLException {
        assertEquals(List.of(), StaticValidator.validate(sql, target, NlConstraints.NONE));
        try (Connection c = ReadOnlyJdbc.open(ds); Statement st = c.createStatement()) {
            st.executeQuery(sql).close(); // the engine agrees the query is valid
        }
    }
}
