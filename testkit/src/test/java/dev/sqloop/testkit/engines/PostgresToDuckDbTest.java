package dev.sqloop.testkit.engines;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class PostgresToDuckDbTest {

    @Test
    void shouldDropThePublicSchemaQualifierOutsideLiterals() {
        String t = PostgresToDuckDb.translateStatement(
                "INSERT INTO public.author (aid, name) VALUES (1, 'see public.author'), (2, 'x\"public\".y')");
        assertEquals("INSERT INTO author (aid, name) VALUES (1, 'see public.author'), (2, 'x\"public\".y')", t);
        assertEquals("CREATE TABLE author (aid bigint)", PostgresToDuckDb.translateStatement("CREATE TABLE \"public\".author (aid bigint)"));
    }

    @Test
    void shouldNotTouchAColumnThatEndsInPublic() {
        assertEquals("SELECT t.is_public.x FROM t", PostgresToDuckDb.translateStatement("SELECT t.is_public.x FROM t"));
    }

    @Test
    void shouldTurnSerialTypesIntoIntegers() {
        String t = PostgresToDuckDb.translateStatement(
                "CREATE TABLE cars (\n  id SERIAL PRIMARY KEY,\n  big bigserial,\n  small smallserial,\n  serial_no TEXT)");
        assertEquals("CREATE TABLE cars (\n  id INTEGER PRIMARY KEY,\n  big BIGINT,\n  small SMALLINT,\n  serial_no TEXT)", t);
    }

    @Test
    void shouldGiveBareNumericAFloatingType() {
        String t = PostgresToDuckDb.translateStatement("CREATE TABLE s (gpa numeric, cost NUMERIC(10, 2), d decimal)");
        assertEquals("CREATE TABLE s (gpa DOUBLE, cost NUMERIC(10, 2), d DOUBLE)", t);
    }

    @Test
    void shouldKeepInsertValuesThatLookLikeTypes() {
        String s = "INSERT INTO t (a) VALUES ('numeric'), ('serial')";
        assertEquals(s, PostgresToDuckDb.translateStatement(s));
    }

    @Test
    void shouldSkipStatementsDuckDbCannotTakeAndKeepTheRest() {
        String script = """
                SET statement_timeout = 0;
                SELECT pg_catalog.set_config('search_path', '', false);
                CREATE EXTENSION IF NOT EXISTS plpgsql;
                COMMENT ON TABLE public.author IS 'people; with a semicolon';
                CREATE TABLE public.author (aid bigint DEFAULT '0'::bigint NOT NULL); -- trailing comment
                ALTER TABLE public.author OWNER TO postgres;
                ALTER TABLE ONLY public.author ADD CONSTRAINT author_pkey PRIMARY KEY (aid);
                GRANT SELECT ON public.author TO reader;
                INSERT INTO public.author VALUES (1);
                """;
        PostgresToDuckDb.Translation t = PostgresToDuckDb.translate(script);
        assertEquals(List.of("CREATE TABLE author (aid bigint DEFAULT '0'::bigint NOT NULL)", "INSERT INTO author VALUES (1)"),
                t.statements());
        assertEquals(7, t.skipped().size());
        assertTrue(t.skipped().get(3).contains("people; with a semicolon"));
    }
}
