package dev.sqloop.parse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.parse.FunctionCatalog.Entry;
import dev.sqloop.parse.FunctionCatalog.Kind;
import dev.sqloop.parse.FunctionCatalog.Safety;
import dev.sqloop.parse.FunctionCatalog.SizeSpec;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The committed allow-list files and their loader. */
class FunctionCatalogTest {

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void shouldKeepEveryDeniedNameRefusedInEveryDialect(Dialect dialect) {
        FunctionCatalog catalog = FunctionCatalog.of(dialect);
        List<String> allowed = catalog.entries().stream()
                .filter(e -> SideEffectPolicy.isDenied(e.name()) && e.safety() != Safety.REFUSED)
                .map(e -> e.name() + " " + e.kind().wireName() + " " + e.safety().wireName()).toList();
        assertEquals(List.of(), allowed, dialect + ": names on SideEffectPolicy's deny-list must stay refused");
        long denied = catalog.entries().stream().filter(e -> SideEffectPolicy.isDenied(e.name())).count();
        System.out.printf("%s: %d rows, %d of them on the deny-list, all refused%n", dialect, catalog.entries().size(), denied);
        assertTrue(denied > 0, dialect + ": every engine has some denied function (current_user, pg_sleep, read_csv, reflect...)");
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void shouldNameTheEngineAndHowToRegenerateInTheHeader(Dialect dialect) {
        FunctionCatalog catalog = FunctionCatalog.of(dialect);
        assertTrue(catalog.header().stream().anyMatch(h -> h.startsWith("engine: ")), catalog.header().toString());
        assertTrue(catalog.header().stream().anyMatch(h -> h.startsWith("regenerate: ") && h.contains("FunctionCatalogDriftIT")),
                catalog.header().toString());
        assertTrue(catalog.entries().size() > 300, dialect + " has " + catalog.entries().size() + " rows");
        for (Entry e : catalog.entries()) {
            assertEquals(e.safety() == Safety.SIZED, !e.sizes().isEmpty(), e.toString());
            if (e.safety() == Safety.REFUSED) assertTrue(!e.note().isBlank(), e + " names its family");
        }
    }

    @Test
    void shouldShareTrinosFileWithPresto() {
        assertSame(FunctionCatalog.of(Dialect.TRINO), FunctionCatalog.of(Dialect.PRESTO));
        assertEquals("trino", FunctionCatalog.resourceName(Dialect.PRESTO));
    }

    @Test
    void shouldRefuseTheProbesFindings() {
        assertRefused(Dialect.POSTGRES, "row_security_active", Kind.SCALAR, "catalog");
        assertRefused(Dialect.POSTGRES, "json_populate_record", Kind.SCALAR, "catalog");
        assertRefused(Dialect.HIVE, "get_sql_schema", Kind.TABLE, "sql-text");
        assertRefused(Dialect.DUCKDB, "json_serialize_plan", Kind.SCALAR, "sql-text");
        assertRefused(Dialect.DUCKDB, "read_csv", Kind.TABLE, "file");
        assertRefused(Dialect.SPARKSQL, "reflect", Kind.SCALAR, "java");
        assertRefused(Dialect.TRINO, "current_groups", Kind.SCALAR, "session");
    }

    private static void assertRefused(Dialect d, String name, Kind kind, String family) {
        Entry e = FunctionCatalog.of(d).lookup(name, kind).orElseThrow(() -> new AssertionError(d + " lacks " + name));
        assertEquals(Safety.REFUSED, e.safety(), e.toString());
        assertEquals(family, e.note(), e.toString());
    }

    @Test
    void shouldReadSizeSpecsOfSizedRows() {
        Entry lpad = FunctionCatalog.of(Dialect.POSTGRES).lookup("lpad", Kind.SCALAR).orElseThrow();
        assertEquals(Safety.SIZED, lpad.safety());
        assertEquals(List.of(new SizeSpec.Width(2)), lpad.sizes());
        assertEquals(List.of(new SizeSpec.Bounds()), FunctionCatalog.of(Dialect.TRINO).lookup("sequence", Kind.TABLE).orElseThrow().sizes());
        assertEquals(List.of(new SizeSpec.Count(1), new SizeSpec.Count(3), new SizeSpec.Format(2), new SizeSpec.Replace(2, 3),
                new SizeSpec.Grows(6), new SizeSpec.Bounds()), FunctionCatalog.sizes("count:1;count:3; format:2;replace:2,3;grows:6;bounds"));
    }

    @Test
    void shouldLookUpByNameAndKind() {
        FunctionCatalog pg = FunctionCatalog.of(Dialect.POSTGRES);
        assertEquals(Safety.PURE, pg.lookup("count", Kind.AGGREGATE).orElseThrow().safety());
        assertEquals(Optional.empty(), pg.lookup("count", Kind.SCALAR));
        assertEquals(Optional.empty(), pg.lookup("no_such_function", Kind.SCALAR));
        // set-returning: PostgreSQL calls them in FROM and in the select list
        assertEquals(List.of(Kind.SCALAR, Kind.TABLE), pg.entries("generate_series").stream().map(Entry::kind).toList());
        assertEquals(List.of(), pg.entries("no_such_function"));
        assertEquals("syntax", pg.lookup("coalesce", Kind.SCALAR).orElseThrow().note());
    }

    @Test
    void shouldParseAFileWithCommentsAndBlankLines() {
        FunctionCatalog c = FunctionCatalog.parse("""
                # engine: Test 1
                repeat\tscalar\tsized\tcount:2

                read_csv\ttable\trefused\tfile
                abs\tscalar\tpure\t
                """, "test.tsv");
        assertEquals(List.of("engine: Test 1"), c.header());
        assertEquals(3, c.entries().size());
        assertEquals(new Entry("abs", Kind.SCALAR, Safety.PURE, "", List.of()), c.lookup("abs", Kind.SCALAR).orElseThrow());
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "abs\tscalar\tpure",                      // three columns
            "Abs\tscalar\tpure\t",                    // upper case
            "pg_catalog.abs\tscalar\tpure\t",         // qualified
            "abs\tprocedure\tpure\t",                 // unknown kind
            "abs\tscalar\tallowed\t",                 // unknown class
            "repeat\tscalar\tsized\t",                // sized without a spec
            "repeat\tscalar\tsized\tcount:0",         // 1-based indexes
            "repeat\tscalar\tsized\tlength:2",        // not in the vocabulary
            "read_csv\ttable\trefused\t",             // refused without its family
            "abs\tscalar\tpure\t\nabs\tscalar\tpure\t"}) // a second row for one (name, kind)
    void shouldRejectAMalformedRowNamingItsLine(String text) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> FunctionCatalog.parse(text, "bad.tsv"));
        assertTrue(e.getMessage().startsWith("bad.tsv line "), e.getMessage());
    }
}
