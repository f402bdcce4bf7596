package dev.sqloop.testkit.engines;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PostgresToHiveTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "serial|INT", "SERIAL|INT", "bigserial|BIGINT", "smallint|SMALLINT", "integer|INT", "bigint|BIGINT",
            "varchar(20)|VARCHAR(20)", "VARCHAR(255)|VARCHAR(255)", "character varying(17)|VARCHAR(17)", "varchar|STRING",
            "char(2)|CHAR(2)", "text|STRING", "TEXT|STRING", "numeric(10,2)|DECIMAL(10,2)", "NUMERIC(10, 2)|DECIMAL(10,2)",
            "numeric(5)|DECIMAL(5,0)", "numeric|DOUBLE", "real|FLOAT", "double precision|DOUBLE", "boolean|BOOLEAN",
            "bool|BOOLEAN", "date|DATE", "timestamp|TIMESTAMP", "timestamp without time zone|TIMESTAMP",
            "timestamp with time zone|TIMESTAMP", "time|STRING", "uuid|STRING", "jsonb|STRING", "bytea|BINARY"})
    void shouldTranslateTypes(String postgres, String hive) {
        assertEquals(hive, PostgresToHive.hiveType(postgres));
    }

    @Test
    void shouldRefuseTypesItCannotTranslate() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PostgresToHive.hiveType("tsvector"));
        assertTrue(e.getMessage().contains("tsvector"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> PostgresToHive.hiveType("text[]"));
    }

    @Test
    void shouldReadColumnsAndDropConstraintsDefaultsAndComments() {
        List<PostgresToHive.Table> tables = PostgresToHive.tables("""
                SET statement_timeout = 0;
                CREATE TABLE public.cars (
                  id SERIAL PRIMARY KEY,
                  "order" varchar(20) NOT NULL DEFAULT 'a,b', -- possible values: a, b
                  price NUMERIC(10, 2) NOT NULL,
                  sold_at TIMESTAMP NOT NULL DEFAULT NOW(),
                  dealer_id INTEGER NOT NULL REFERENCES dealers(id),
                  CONSTRAINT cars_price CHECK (price > 0),
                  PRIMARY KEY (id),
                  UNIQUE (id, "order")
                );
                INSERT INTO public.cars VALUES (1, 'x', 1.5, now(), 1);
                CREATE TABLE IF NOT EXISTS "Weird" (date date, time time);
                """);
        assertEquals(2, tables.size());
        assertEquals("cars", tables.get(0).name());
        assertEquals(List.of(new PostgresToHive.Column("id", "INT"), new PostgresToHive.Column("order", "VARCHAR(20)"),
                new PostgresToHive.Column("price", "DECIMAL(10,2)"), new PostgresToHive.Column("sold_at", "TIMESTAMP"),
                new PostgresToHive.Column("dealer_id", "INT")), tables.get(0).columns());
        assertEquals("Weird", tables.get(1).name());
        assertEquals(List.of(new PostgresToHive.Column("date", "DATE"), new PostgresToHive.Column("time", "STRING")), tables.get(1).columns());
    }

    @Test
    void shouldQuoteEveryIdentifierWithBackticks() {
        PostgresToHive.Table t = new PostgresToHive.Table("order", List.of(new PostgresToHive.Column("date", "DATE"),
                new PostgresToHive.Column("we`ird", "STRING")));
        String ddl = PostgresToHive.createTable("shop", t, "file:/tmp/x/order");
        assertEquals("""
                CREATE EXTERNAL TABLE `shop`.`order` (
                  `date` DATE,
                  `we``ird` STRING)
                ROW FORMAT DELIMITED FIELDS TERMINATED BY '\\001' ESCAPED BY '\\\\' NULL DEFINED AS '\\\\N'
                STORED AS TEXTFILE LOCATION 'file:/tmp/x/order'""", ddl);
    }

    @Test
    void shouldEscapeTheTextFormatsSpecialCharactersAndMarkNulls() {
        assertEquals("1\u0001a\\\\b\u0001\\N\u0001x\\\u0001y\\nz\\r\n",
                PostgresToHive.textLine(Arrays.asList("1", "a\\b", null, "x\u0001y\nz\r")));
        assertEquals("\n", PostgresToHive.textLine(List.of("")), "an empty string is an empty field, not a null");
    }

    @Test
    void shouldTranslateEveryDefogTable() throws Exception {
        int tables = 0;
        for (String db : DefogDatasets.DATABASES) {
            List<PostgresToHive.Table> t = PostgresToHive.tables(Files.readString(DefogDatasets.script(db)));
            assertTrue(!t.isEmpty(), db);
            tables += t.size();
            for (PostgresToHive.Table table : t) assertTrue(!table.columns().isEmpty(), db + "." + table.name());
        }
        assertTrue(tables >= 40, "tables: " + tables);
    }
}
