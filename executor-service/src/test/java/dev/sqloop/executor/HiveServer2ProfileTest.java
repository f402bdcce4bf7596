package dev.sqloop.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import dev.sqloop.common.Dialect;
import dev.sqloop.common.datasource.DatasourceConfig;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class HiveServer2ProfileTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "jdbc:hive2://h:10000/default|jdbc:hive2://h:10000/default;socketTimeout=45000",
            "jdbc:hive2://h:10000|jdbc:hive2://h:10000/;socketTimeout=45000",
            "jdbc:hive2://h:10000/db;ssl=true?spark.sql.ansi.enabled=true|jdbc:hive2://h:10000/db;ssl=true;socketTimeout=45000?spark.sql.ansi.enabled=true",
            "jdbc:hive2://h:10000/db#v=1|jdbc:hive2://h:10000/db;socketTimeout=45000#v=1",
            "jdbc:hive2://h:10000/db;socketTimeout=5000|jdbc:hive2://h:10000/db;socketTimeout=5000"})
    void shouldBoundEveryThriftCallUnlessTheUrlSaysOtherwise(String url, String expected) {
        assertEquals(expected, dev.sqloop.common.datasource.HiveServer2Url.withSessionVariable(url, "socketTimeout", "45000"));
    }

    @Test
    void shouldConfigureAPoolHiveJdbcAccepts() {
        HikariConfig pool = new HikariConfig();
        pool.setReadOnly(true);
        DatasourceConfig ds = DatasourceConfig.of("lake", Dialect.SPARKSQL, "jdbc:hive2://h:10000/default", null, null)
                .withLimits(10, Duration.ofSeconds(30));
        new HiveServer2Profile(Dialect.SPARKSQL).configure(pool, ds);
        assertFalse(pool.isReadOnly(), "hive-jdbc throws on setReadOnly(true)");
        String url = pool.getJdbcUrl();
        assertTrue(url.startsWith("jdbc:hive2://h:10000/default;socketTimeout=45000?hive.variable.substitute=false;"
                + "spark.sql.variable.substitute=false;spark.sql.parser.escapedStringLiterals=false;"
                + "spark.sql.parser.quotedRegexColumnNames=false;spark.sql.ansi.doubleQuotedIdentifiers=false;"), url);
        assertTrue(url.contains("spark.sql.thriftServer.queryTimeout=31s") && url.contains("spark.sql.thriftServer.interruptOnCancel=true"), url);
        assertEquals("org.apache.hive.jdbc.HiveDriver", pool.getDriverClassName());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "jdbc:hive2://h:10000/db|jdbc:hive2://h:10000/db?hive.variable.substitute=false;hive.support.quoted.identifiers=column",
            "jdbc:hive2://h:10000/db?hive.variable.substitute=true;x=1#v=2|jdbc:hive2://h:10000/db?x=1;hive.variable.substitute=false;hive.support.quoted.identifiers=column#v=2",
            "jdbc:hive2://h:10000/db#v=a?b|jdbc:hive2://h:10000/db?hive.variable.substitute=false;hive.support.quoted.identifiers=column#v=a?b"})
    void shouldTurnTextSubstitutionOffWhateverTheUrlSays(String url, String expected) {
        assertEquals(expected, dev.sqloop.common.datasource.ReadOnlyJdbc.url(DatasourceConfig.of("h", Dialect.HIVE, url, null, null)));
    }

    @Test
    void shouldWrapSparkButNotHive() {
        assertEquals("SELECT * FROM (\nSELECT 1\n) AS q LIMIT 5", new HiveServer2Profile(Dialect.SPARKSQL).limited("SELECT 1", 5));
        assertEquals("SELECT 1", new HiveServer2Profile(Dialect.HIVE).limited("SELECT 1", 5));
        assertEquals("SELECT * FROM (\nSELECT 1\n) AS q LIMIT 0", new HiveServer2Profile(Dialect.SPARKSQL).explain("SELECT 1"));
        assertEquals("EXPLAIN SELECT 1", new HiveServer2Profile(Dialect.HIVE).explain("SELECT 1"));
        assertInstanceOf(HiveErrors.class, EngineProfile.forDialect(Dialect.HIVE).errors());
    }
}
