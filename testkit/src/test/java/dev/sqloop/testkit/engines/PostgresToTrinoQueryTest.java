package dev.sqloop.testkit.engines;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;
import org.junit.jupiter.api.Test;

class PostgresToTrinoQueryTest {
    private static String t(String pg) {
        return PostgresToTrinoQuery.translate(pg);
    }

    @Test
    void shouldSpellCastsWithTrinoTypes() {
        assertEquals("SELECT CAST(count(*) AS DOUBLE) / 2 FROM t", t("SELECT count(*)::float / 2 FROM t"));
        assertEquals("SELECT CAST(a AS DOUBLE), CAST(b AS VARCHAR), CAST(c AS DECIMAL(10, 2)), CAST(d AS DATE) FROM t",
                t("SELECT CAST(a AS FLOAT), b::text, c::numeric(10,2), CAST(d AS date) FROM t"));
    }

    @Test
    void shouldTurnIlikeIntoLikeOnLowerCase() {
        assertEquals("SELECT name FROM r WHERE lower(city) LIKE lower('%New York%') AND lower(x) NOT LIKE lower('a%')",
                t("SELECT name FROM r WHERE city ILIKE '%New York%' AND x NOT ILIKE 'a%'"));
        assertEquals("SELECT 1 FROM r WHERE name LIKE 'A%'", t("SELECT 1 FROM r WHERE name LIKE 'A%'"));
    }

    @Test
    void shouldWritePostgresIntervalStringsAsTrinoIntervals() {
        assertEquals("INTERVAL '7' DAY", PostgresToTrinoQuery.interval("'7 days'"));
        assertEquals("INTERVAL '14' DAY", PostgresToTrinoQuery.interval("'2 weeks'"));
        assertEquals("(INTERVAL '1' YEAR + INTERVAL '2' MONTH)", PostgresToTrinoQuery.interval("'1 year 2 mons'"));
        assertNull(PostgresToTrinoQuery.interval("'1 fortnight'"));
        assertEquals("SELECT CURRENT_DATE - INTERVAL '10' YEAR", t("SELECT CURRENT_DATE - interval '10 year'"));
        assertEquals("SELECT CURRENT_DATE - INTERVAL '70' DAY", t("SELECT CURRENT_DATE - INTERVAL '70' DAY"));
    }

    @Test
    void shouldMapDateFunctions() {
        assertEquals("SELECT date_format(ts, '%Y-%m'), from_unixtime(n), current_timestamp FROM t",
                t("SELECT to_char(ts, 'YYYY-MM'), to_timestamp(n), now() FROM t"));
        assertEquals("SELECT to_unixtime(ts), (day_of_week(d) % 7), EXTRACT(MONTH FROM d), EXTRACT(DAY FROM x) FROM t",
                t("SELECT EXTRACT(EPOCH FROM ts), EXTRACT(DOW FROM d), extract(month FROM d), date_part('day', x) FROM t"));
        assertEquals("%H:%i:%s at %%", PostgresToTrinoQuery.dateFormat("HH24:MI:SS \"at\" %"));
    }

    @Test
    void shouldFormatTheTimestampBehindATimeCast() {
        assertEquals("SELECT date_format(from_unixtime(t), '%H:%i') FROM f", t("SELECT to_char(to_timestamp(t)::TIME, 'HH24:MI') FROM f"));
    }

    @Test
    void shouldTypeDateShapedStringsComparedWithExpressions() {
        assertEquals("SELECT 1 FROM t WHERE ts BETWEEN DATE '2023-01-01' AND TIMESTAMP '2023-03-31 10:00:00' AND e < TIME '13:00:00'"
                        + " AND CAST(ts AS DATE) = DATE '2023-04-01' AND s = 'x' AND d IN (DATE '2023-01-01', DATE '2023-01-02')",
                t("SELECT 1 FROM t WHERE ts BETWEEN '2023-01-01' AND '2023-03-31 10:00:00' AND e < '13:00:00'"
                        + " AND ts::date = '2023-04-01' AND s = 'x' AND d IN ('2023-01-01', '2023-01-02')"));
        assertEquals("SELECT 1 WHERE '2023-01-01' = '2023-01-01'", t("SELECT 1 WHERE '2023-01-01' = '2023-01-01'"));
    }

    @Test
    void shouldGroupByTheExpressionBehindAnOutputName() {
        assertEquals("SELECT date_trunc('month', d) AS month, count(*) FROM s GROUP BY date_trunc('month', d) ORDER BY MONTH",
                t("SELECT date_trunc('month', d) AS month, count(*) FROM s GROUP BY MONTH ORDER BY MONTH"));
        assertEquals("SELECT city AS city, count(*) FROM s GROUP BY city", t("SELECT city AS city, count(*) FROM s GROUP BY city"));
        assertEquals("SELECT a.x AS y FROM a GROUP BY a.y", t("SELECT a.x AS y FROM a GROUP BY a.y"));
    }

    @Test
    void shouldSortNullsFirstForDescendingAsPostgresDoes() {
        assertEquals("SELECT a FROM t ORDER BY a DESC NULLS FIRST, b, c DESC NULLS LAST",
                t("SELECT a FROM t ORDER BY a DESC, b, c DESC NULLS LAST"));
        assertEquals("SELECT a FROM (SELECT a FROM t ORDER BY a DESC NULLS FIRST LIMIT 3) x",
                t("SELECT a FROM (SELECT a FROM t ORDER BY a DESC LIMIT 3) x"));
    }

    @Test
    void shouldSubtractDatesAsDaysWhenTheTypesAreKnown() {
        Map<String, String> types = Map.of("hire_date", "DATE", "end_date", "DATE", "ts", "TIMESTAMP(6)");
        assertEquals("SELECT date_diff('day', s.hire_date, s.end_date), date_diff('day', max(hire_date), CURRENT_DATE), ts - hire_date FROM s",
                PostgresToTrinoQuery.translate("SELECT s.end_date - s.hire_date, CURRENT_DATE - max(hire_date), ts - hire_date FROM s", types));
        assertEquals("SELECT end_date - hire_date FROM s", t("SELECT end_date - hire_date FROM s"));
    }

    @Test
    void shouldRefuseWhatIsNotSql() {
        assertThrows(IllegalArgumentException.class, () -> t("SELEC 1"));
    }
}
