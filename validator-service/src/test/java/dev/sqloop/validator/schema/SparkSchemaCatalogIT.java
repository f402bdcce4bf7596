package dev.sqloop.validator.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.datasource.ReadOnlyJdbc;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.message.Issue;
import dev.sqloop.common.message.NlConstraints;
import dev.sqloop.testkit.engines.DefogDatasets;
import dev.sqloop.testkit.engines.SparkThriftServer;
import dev.sqloop.validator.StaticValidator;
import dev.sqloop.validator.ValidationTarget;
import dev.sqloop.validator.parse.ObjectName;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The HIVE/SPARKSQL branch of {@link JdbcSchemaCatalogLoader} ({@code SHOW TABLES}, {@code DESCRIBE},
 * {@code SHOW FUNCTIONS}) on a real Spark Thrift Server 3.5.4 holding the defog {@code broker} database, read
 * through hive-jdbc as the validator reads it in production ({@link ReadOnlyJdbc#open}).
 */
class SparkSchemaCatalogIT {
    private static SparkThriftServer spark;
    private static DatasourceConfig ds;
    private static SchemaCatalog catalog;
    private static ValidationTarget target;

    @BeforeAll
    static void load() throws Exception {
        spark = SparkThriftServer.shared();
        try (Connection admin = spark.connect("default")) {
            DefogDatasets.loadIntoHiveServer2(admin, "broker", spark.dataDir());
            DefogDatasets.loadIntoHiveServer2(admin, "academic", spark.dataDir());
        }
        ds = DatasourceConfig.of("broker", Dialect.SPARKSQL, spark.jdbcUrl("broker"), null, null);
        catalog = load(CatalogLoadOptions.DEFAULTS);
        target = new ValidationTarget(Dialect.SPARKSQL, catalog);
    }

    private static SchemaCatalog load(CatalogLoadOptions options) throws SQLException {
        try (Connection c = ReadOnlyJdbc.open(ds)) {
            return new JdbcSchemaCatalogLoader(Dialect.SPARKSQL, options).load(c);
        }
    }

    @Test
    void shouldLoadTheUrlsDatabaseOnlyWhenNoSchemaIsAllowListed() {
        assertEquals(Set.of("broker.sbcustomer", "broker.sbticker", "broker.sbdailyprice", "broker.sbtransaction"),
                Set.copyOf(catalog.tables().stream().map(TableSchema::qualifiedName).toList()));
        assertEquals("broker", catalog.defaultSchema());
    }

    @Test
    void shouldLoadColumnsInOrderWithSparksTypes() {
        TableSchema tx = catalog.resolve(ObjectName.of("sbTransaction")).orElseThrow();
        Map<String, String> expected = new LinkedHashMap<>();
        expected.put("sbtxid", "varchar(50)");
        expected.put("sbtxcustid", "varchar(20)");
        expected.put("sbtxtickerid", "varchar(20)");
        expected.put("sbtxdatetime", "timestamp");
        expected.put("sbtxtype", "varchar(20)");
        expected.put("sbtxshares", "decimal(10,2)");
        assertEquals(expected, tx.columns().entrySet().stream().limit(6)
                .collect(LinkedHashMap::new, (m, e) -> m.put(e.getKey(), e.getValue()), Map::putAll));
        TableSchema ticker = catalog.resolve(ObjectName.of("broker", "sbticker")).orElseThrow();
        assertEquals("boolean", ticker.columns().get("sbtickerisactive"));
        assertEquals("date", catalog.resolve(ObjectName.of("sbcustomer")).orElseThrow().columns().get("sbcustjoindate"));
    }

    @Test
    void shouldReadOtherDatabasesWhenAllowListed() throws SQLException {
        SchemaCatalog both = load(new CatalogLoadOptions(List.of(), Set.of("broker", "academic"), Set.of(), 0, 0));
        assertEquals(4 + 15, both.tables().size());
        assertEquals(List.of("aid", "homepage", "name", "oid"),
                List.copyOf(both.resolve(ObjectName.of("academic", "author")).orElseThrow().columns().keySet()));
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
    void shouldIndexLowCardinalityTextColumns() {
        TableSchema customer = catalog.resolve(ObjectName.of("sbcustomer")).orElseThrow();
        List<String> statuses = catalog.values(customer, "sbcuststatus").orElseThrow();
        assertTrue(Set.of("active", "inactive", "suspended", "closed").containsAll(statuses) && statuses.contains("active"), statuses.toString());
    }

    @Test
    void shouldReportAMissingColumnWithCandidates() {
        Issue issue = single(StaticValidator.validate("SELECT c.sbCustNme FROM sbCustomer c", target, null));
        assertEquals(ErrorCategory.COLUMN_NOT_FOUND, issue.category());
        assertTrue(issue.candidates().contains("sbcustname"), issue.candidates().toString());
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

    private static Issue single(List<Issue> issues) {
        assertEquals(1, issues.size(), issues::toString);
        return issues.getFirst();
    }
}
