package dev.sqloop.validator.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.datasource.ReadOnlyJdbc;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.message.Issue;
import dev.sqloop.testkit.engines.DefogDatasets;
import dev.sqloop.validator.StaticValidator;
import dev.sqloop.validator.ValidationTarget;
import dev.sqloop.parse.ObjectName;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * What the HIVE/SPARKSQL branch of {@link JdbcSchemaCatalogLoader} ({@code SHOW TABLES}, {@code DESCRIBE},
 * {@code SHOW FUNCTIONS}) loads alike from Hive and from Spark Thrift Server: the defog {@code broker} and
 * {@code academic} databases, read through hive-jdbc as the validator reads them in production
 * ({@link ReadOnlyJdbc#open}). Each engine's subclass starts it and keeps what differs: its functions, temporary
 * views, and how the engine itself confirms a query the validator passed.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class HiveServer2SchemaCatalogIT {
    final Dialect dialect;
    DatasourceConfig ds;
    SchemaCatalog catalog;
    ValidationTarget target;

    HiveServer2SchemaCatalogIT(Dialect dialect) {
        this.dialect = dialect;
    }

    /** A connection that may create databases and tables, for loading the defog data. */
    abstract Connection admin() throws SQLException;

    abstract String jdbcUrl(String database);

    /** A folder the server reads, where the loader writes the tables' text files. */
    abstract Path dataDir() throws Exception;

    @BeforeAll
    void loadDefogDatabases() throws Exception {
        try (Connection admin = admin()) {
            DefogDatasets.loadIntoHiveServer2(admin, "broker", dataDir());
            DefogDatasets.loadIntoHiveServer2(admin, "academic", dataDir());
        }
        ds = DatasourceConfig.of("broker", dialect, jdbcUrl("broker"), null, null);
        catalog = load(CatalogLoadOptions.DEFAULTS);
        target = new ValidationTarget(dialect, catalog);
    }

    SchemaCatalog load(CatalogLoadOptions options) throws SQLException {
        try (Connection c = ReadOnlyJdbc.open(ds)) {
            return new JdbcSchemaCatalogLoader(dialect, options).load(c);
        }
    }

    /**
     * What the retrieve stage's schema linker reads for the prompt, on the same server: HiveServer2 has no
     * {@code information_schema}, so the tables and columns come from the driver's metadata (the URL's database) and
     * the low-cardinality values from backtick-quoted queries (a double quote is a string literal there).
     */
    @Test
    void shouldGiveTheSchemaLinkerTheUrlsTablesColumnsAndSampleValues() throws SQLException {
        java.util.List<dev.sqloop.fewshot.schema.SchemaSource.TableInfo> tables =
                new dev.sqloop.fewshot.schema.JdbcSchemaSource(name -> ReadOnlyJdbc.open(ds), null).tables("broker");
        java.util.Map<String, dev.sqloop.fewshot.schema.SchemaSource.TableInfo> byName = new java.util.TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        tables.forEach(t -> byName.put(t.name(), t));
        assertEquals(java.util.Set.of("sbcustomer", "sbdailyprice", "sbticker", "sbtransaction"),
                tables.stream().map(t -> t.name().toLowerCase(java.util.Locale.ROOT)).collect(java.util.stream.Collectors.toSet()),
                "the URL's database only, every table");
        dev.sqloop.fewshot.schema.SchemaSource.ColumnInfo type = byName.get("sbTicker").columns().stream()
                .filter(c -> c.name().equalsIgnoreCase("sbTickerType")).findFirst().orElseThrow();
        dev.sqloop.fewshot.schema.SchemaSource.ColumnInfo txType = byName.get("sbTransaction").columns().stream()
                .filter(c -> c.name().equalsIgnoreCase("sbTxType")).findFirst().orElseThrow();
        // Spark from DISTINCT queries; Hive, where each DISTINCT is a job of its own, from the small tables' rows
        assertEquals(java.util.List.of("etf", "mutualfund", "stock"), type.sampleValues(), "a low-cardinality text column's values");
        assertEquals(java.util.List.of("buy", "sell"), txType.sampleValues());
        assertEquals(8, byName.get("sbTicker").columns().size(), "every column, with its type: " + byName.get("sbTicker").columns());
    }

    @Test
    void shouldLoadTheUrlsDatabaseOnlyWhenNoSchemaIsAllowListed() {
        assertEquals(Set.of("broker.sbcustomer", "broker.sbticker", "broker.sbdailyprice", "broker.sbtransaction"),
                Set.copyOf(catalog.tables().stream().map(TableSchema::qualifiedName).toList()));
        assertEquals("broker", catalog.defaultSchema());
    }

    /** Both engines keep the loader's declared types (varchar(n), decimal(p,s)), lower-cased names, in table order. */
    @Test
    void shouldLoadColumnsInOrderWithTheEnginesTypes() {
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

    static Issue single(List<Issue> issues) {
        assertEquals(1, issues.size(), issues::toString);
        return issues.getFirst();
    }
}
