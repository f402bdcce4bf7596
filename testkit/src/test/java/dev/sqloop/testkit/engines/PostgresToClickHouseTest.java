package dev.sqloop.testkit.engines;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PostgresToClickHouseTest {
    private static final String SCRIPT = """
            CREATE TABLE public."sbCustomer" (
                sbCustId varchar(20) PRIMARY KEY,
                sbCustName text NOT NULL,
                sbCustJoinDate date,
                balance numeric(10, 2),
                active boolean,
                opened timestamp,
                starts time,
                n serial
            );
            INSERT INTO "sbCustomer" VALUES ('C1', 'Ada', '2023-01-01', 1.5, true, '2023-01-01 10:00:00', '09:00', 1);
            """;

    @Test
    void shouldGiveEachColumnItsClickHouseTypeNullableUnlessNotNull() {
        List<PostgresToClickHouse.Table> tables = PostgresToClickHouse.tables(SCRIPT);
        assertEquals(1, tables.size());
        assertEquals("sbCustomer", tables.getFirst().name(), "a quoted name keeps its case, as PostgreSQL stores it");
        assertEquals(Map.of("sbcustid", "String", "sbcustname", "String", "sbcustjoindate", "Nullable(Date32)",
                "balance", "Nullable(Float64)", "active", "Nullable(Bool)", "opened", "Nullable(DateTime64(6))",
                "starts", "Nullable(String)", "n", "Int32"), tables.getFirst().columns());
    }

    @Test
    void shouldCreateTheDatabaseAndAMergeTreeTablePerTable() {
        List<String> statements = PostgresToClickHouse.createStatements(SCRIPT, "broker");
        assertEquals("CREATE DATABASE IF NOT EXISTS `broker`", statements.get(0));
        assertEquals("CREATE OR REPLACE TABLE `broker`.`sbCustomer` (`sbcustid` String, `sbcustname` String, `sbcustjoindate`"
                + " Nullable(Date32), `balance` Nullable(Float64), `active` Nullable(Bool), `opened` Nullable(DateTime64(6)),"
                + " `starts` Nullable(String), `n` Int32) ENGINE = MergeTree ORDER BY tuple()", statements.get(1));
        assertEquals(2, statements.size(), "rows are not translated here");
    }

    @Test
    void shouldFoldUnquotedNamesAndKeepLiteralsAndQuotedNames() {
        assertEquals("select c.sbcustname as \"Name\", toDateTime(f.t) from sbcustomer c where c.status = 'It''s Active'",
                PostgresToClickHouse.query("SELECT c.sbCustName AS \"Name\", TO_TIMESTAMP(f.t) FROM sbCustomer c WHERE c.status = 'It''s Active'"));
    }
}
