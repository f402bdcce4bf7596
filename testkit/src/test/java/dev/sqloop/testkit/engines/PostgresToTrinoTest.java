package dev.sqloop.testkit.engines;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PostgresToTrinoTest {

    @Test
    void shouldCreateMemoryTablesWithTrinoTypesAndNoConstraints() {
        PostgresToTrino.Translation t = PostgresToTrino.translate("""
                CREATE TABLE public.Cars (
                  id SERIAL PRIMARY KEY,
                  big bigserial,
                  vin VARCHAR(17) NOT NULL UNIQUE, -- a comment; with a semicolon
                  cost NUMERIC(10, 2) NOT NULL,
                  gpa numeric,
                  r real,
                  ok boolean,
                  d date,
                  ts TIMESTAMP NOT NULL DEFAULT NOW(),
                  t time,
                  n text DEFAULT ''::text NOT NULL
                );
                """, "memory", "dealer");
        assertEquals(List.of("CREATE SCHEMA \"memory\".\"dealer\"",
                "CREATE TABLE \"memory\".\"dealer\".\"cars\" (\"id\" INTEGER, \"big\" BIGINT, \"vin\" VARCHAR NOT NULL,"
                        + " \"cost\" DOUBLE NOT NULL, \"gpa\" DOUBLE, \"r\" REAL, \"ok\" BOOLEAN, \"d\" DATE,"
                        + " \"ts\" TIMESTAMP(6) NOT NULL, \"t\" TIME(6), \"n\" VARCHAR NOT NULL)"), t.statements());
    }

    @Test
    void shouldInsertTypedValuesAndFillOmittedDefaults() {
        PostgresToTrino.Translation t = PostgresToTrino.translate("""
                CREATE TABLE sales (id SERIAL PRIMARY KEY, price NUMERIC(10,2), day DATE, note text, flag text DEFAULT 'y'::text,
                  crtd_ts TIMESTAMP NOT NULL DEFAULT NOW());
                INSERT INTO sales (id, price, day, note) VALUES
                  (1, 150.00, '2023-04-01', 'it''s'),
                  (2, NULL, CURRENT_DATE - INTERVAL '8 days', NULL);
                SET statement_timeout = 0;
                """, "memory", "d");
        assertEquals("INSERT INTO \"memory\".\"d\".\"sales\" (\"id\", \"price\", \"day\", \"note\", \"flag\", \"crtd_ts\") VALUES\n"
                + "(1, 150.00, DATE '2023-04-01', 'it''s', CAST(CAST('y' AS VARCHAR) AS VARCHAR), CAST(current_timestamp AS TIMESTAMP(6))),\n"
                + "(2, NULL, CAST(CURRENT_DATE - INTERVAL '8' DAY AS DATE), NULL, CAST(CAST('y' AS VARCHAR) AS VARCHAR), CAST(current_timestamp AS TIMESTAMP(6)))",
                t.statements().get(2));
        assertEquals(List.of("SET statement_timeout = 0"), t.skipped());
    }

    @Test
    void shouldTranslateBrokersComputedValues() {
        PostgresToTrino.Translation t = PostgresToTrino.translate("""
                CREATE TABLE p (ms bigint NOT NULL, s varchar(25));
                INSERT INTO p VALUES (EXTRACT(EPOCH FROM CURRENT_TIMESTAMP - INTERVAL '1 day') * 1000, TO_CHAR(NOW(), 'YYYYMMDD'));
                """, "memory", "b");
        assertEquals("INSERT INTO \"memory\".\"b\".\"p\" (\"ms\", \"s\") VALUES\n"
                + "(CAST(to_unixtime(CURRENT_TIMESTAMP - INTERVAL '1' DAY) * 1000 AS BIGINT), CAST(date_format(current_timestamp, '%Y%m%d') AS VARCHAR))",
                t.statements().get(2));
    }

    @Test
    void shouldSplitLargeInsertsIntoBatches() {
        StringBuilder script = new StringBuilder("CREATE TABLE n (x bigint);\nINSERT INTO n VALUES ");
        int rows = PostgresToTrino.ROWS_PER_INSERT * 2 + 1;
        for (int i = 0; i < rows; i++) script.append(i > 0 ? ", " : "").append('(').append(i).append(')');
        List<String> statements = PostgresToTrino.translate(script + ";", "memory", "n").statements();
        assertEquals(5, statements.size());
        assertTrue(statements.get(4).endsWith("VALUES\n(" + (rows - 1) + ")"));
    }

    @Test
    void shouldRefuseAnInsertBeforeItsTableAndATypeItDoesNotKnow() {
        assertThrows(IllegalArgumentException.class, () -> PostgresToTrino.translate("INSERT INTO t VALUES (1);", "memory", "x"));
        assertThrows(IllegalArgumentException.class, () -> PostgresToTrino.translate("CREATE TABLE t (g geometry);", "memory", "x"));
    }

    @Test
    void shouldTranslateEveryDefogScript() throws Exception {
        for (String db : DefogDatasets.DATABASES) {
            String script = Files.readString(DefogDatasets.script(db));
            PostgresToTrino.Translation t = PostgresToTrino.translate(script, "memory", db);
            assertEquals(List.of(), t.skipped(), db);
            long creates = t.statements().stream().filter(s -> s.startsWith("CREATE TABLE")).count();
            assertEquals(SqlScript.split(script).stream().filter(s -> s.startsWith("CREATE TABLE")).count(), creates, db);
        }
        Map<String, String> types = PostgresToTrino.columnTypes(Files.readString(DefogDatasets.script("car_dealership")));
        assertEquals("DATE", types.get("hire_date"));
        assertEquals("TIMESTAMP(6)", types.get("crtd_ts"));
    }
}
