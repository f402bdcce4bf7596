package dev.sqloop.validator.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.datasource.ReadOnlyJdbc;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.message.Issue;
import dev.sqloop.common.message.NlConstraints;
import dev.sqloop.testkit.engines.HiveServer;
import dev.sqloop.validator.StaticValidator;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The catalog loaded from a real Apache Hive 4.0.1 HiveServer2 (the shared checks are in
 * {@link HiveServer2SchemaCatalogIT}). Hive's own here: its functions (no {@code date_trunc}), and queries the
 * validator passes that Hive compiles.
 */
class HiveSchemaCatalogIT extends HiveServer2SchemaCatalogIT {
    private final HiveServer hive = HiveServer.shared();

    HiveSchemaCatalogIT() {
        super(Dialect.HIVE);
    }

    @Override
    Connection admin() throws SQLException {
        return DriverManager.getConnection(hive.jdbcUrl("default"), "sqloop", "");
    }

    @Override
    String jdbcUrl(String database) {
        return hive.jdbcUrl(database);
    }

    @Override
    Path dataDir() throws IOException {
        return hive.dataDir();
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
}
