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
import dev.sqloop.testkit.engines.HiveServer;
import dev.sqloop.validator.StaticValidator;
import dev.sqloop.validator.ValidationTarget;
import dev.sqloop.validator.parse.ObjectName;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
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
 * The HIVE branch of {@link JdbcSchemaCatalogLoader} ({@code SHOW TABLES}, {@code DESCRIBE}, {@code SHOW
 * FUNCTIONS}) on a real Apache Hive 4.0.1 HiveServer2 holding the defog {@code broker} and {@code academic}
 * databases, read through hive-jdbc as the validator reads it in production ({@link ReadOnlyJdbc#open}).
 * Kept apart from SparkSchemaCatalogIT: the two engines differ in exactly what these tests check (Hive lists
 * no temporary views, has no {@code date_trunc}, and answers SHOW TABLES with one column).
 */
class HiveSchemaCatalogIT {
    private static HiveServer hive;
    private static DatasourceConfig ds;
    private static SchemaCatalog catalog;
    private static ValidationTarget target;

    @BeforeAll
    static void load() throws Exception {
        hive = HiveServer.shared();
        try (Connection admin = DriverManager.getConnection(hive.jdbcUrl("default"), "sqloop", "")) {
            DefogDatasets.loadIntoHiveServer2(admin, "broker", hive.dataDir());
            DefogDatasets.loadIntoHiveServer2(admin, "academic", hive.dataDir());
        }
        ds = DatasourceConfig.of("broker", Dialect.HIVE, hive.jdbcUrl("broker"), null, null);
        catalog = load(CatalogLoadOptions.DEFAULTS);
        target = new ValidationTarget(Dialect.HIVE, catalog);
    }

    private static SchemaCatalog load(CatalogLoadOptions options) throws SQLException {
        try (Connection c = ReadOnlyJdbc.open(ds)) {
            return new JdbcSchemaCatalogLoader(Dialect.HIVE, options).load(c);
        }
    }

    @Test
    void shouldLoadTheUrlsDatabaseOnlyWhenNoSchemaIsAllowListed() {
        assertEquals(Set.of("broker.sbcustomer", "broker.sbticker", "broker.sbdailyprice", "broker.sbtransaction"),
                Set.copyOf(catalog.tables().stream().map(TableSchema::qualifiedName).toList()));
        assertEquals("broker", catalog.defaultSchema());
    }

    @Test
    void shouldLoadColumnsInOrderWithHivesTypes() {
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
        assertEquals("boolean", catalog.resolve(ObjectName.of("broker", "sbticker")).orElseThrow().columns().get("sbtickerisactive"));
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
    void shouldLoadHivesFunctions() {
        assertTrue(catalog.functions().containsAll(Set.of("count", "sum", "date_format", "datediff", "trunc", "from_unixtime",
                "percentile_approx", "explode", "nvl", "regexp_extract")), () -> "functions: " + catalog.functions().size());
        assertFalse(catalog.functions().contains("strftime"), "DuckDB's, not Hive's");
        assertFalse(catalog.functions().contains("date_trunc"), "Spark's and PostgreSQL's, not Hive 4's");
        assertTrue(catalog.functions().size() > 250, "functions: " + catalog.functions().size());
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
    void shouldReportAFunctionHiveDoesNotHave() {
        Issue issue = single(StaticValidator.validate("SELECT date_trunc('month', sbCustJoinDate) FROM sbCustomer", target, null));
        assertEquals(ErrorCategory.UNSUPPORTED_FUNCTION, issue.category());
        assertEquals("date_trunc", issue.identifier());
    }

    /** The validator passes them and Hive compiles them (EXPLAIN: the whole semantic analysis, no MapReduce job). */
    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT sbTickerSymbol, max(sbDpClose) AS top FROM sbDailyPrice p JOIN sbTicker t ON p.sbDpTickerId = t.sbTickerId GROUP BY sbTickerSymbol",
            "SELECT date_format(sbTxDateTime, 'yyyy-MM') AS m, count(*) FROM sbTransaction GROUP BY date_format(sbTxDateTime, 'yyyy-MM')",
            "SELECT `sbCustName` FROM broker.sbCustomer WHERE sbCustStatus = 'active' LIMIT 3",
            "SELECT trunc(sbCustJoinDate, 'MM') AS m, nvl(sbCustCountry, '-') FROM sbCustomer"})
    void shouldPassQueriesHiveItselfCompiles(String sql) throws SQLException {
        assertEquals(List.of(), StaticValidator.validate(sql, target, NlConstraints.NONE));
        try (Connection c = ReadOnlyJdbc.open(ds); Statement st = c.createStatement(); ResultSet rs = st.executeQuery("EXPLAIN " + sql)) {
            assertTrue(rs.next(), "Hive compiled a plan");
        }
    }

    private static Issue single(List<Issue> issues) {
        assertEquals(1, issues.size(), issues::toString);
        return issues.getFirst();
    }
}
