package dev.sqloop.testkit.engines;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.testkit.engines.FunctionRules.Classified;
import dev.sqloop.testkit.engines.FunctionRules.Verdict;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The generator's shared rules and the file's rendering and comparison, without an engine. */
class FunctionRulesTest {

    @Test
    void shouldNameTheFamilyOfEveryDeniedName() {
        assertEquals(Optional.of("sleep"), FunctionRules.denied("pg_sleep_for"));
        assertEquals(Optional.of("file"), FunctionRules.denied("pg_read_binary_file"));
        assertEquals(Optional.of("catalog"), FunctionRules.denied("pg_get_viewdef"));
        assertEquals(Optional.of("catalog"), FunctionRules.denied("has_table_privilege"));
        assertEquals(Optional.of("file"), FunctionRules.denied("read_csv_auto"));
        assertEquals(Optional.of("java"), FunctionRules.denied("java_method"));
        assertEquals(Optional.of("server"), FunctionRules.denied("inet_server_addr"));
        assertEquals(Optional.empty(), FunctionRules.denied("pg_typeof"));
        assertEquals(Optional.empty(), FunctionRules.denied("lower"));
    }

    @Test
    void shouldLetNoDecisionAllowADeniedName() {
        assertEquals(Verdict.refused("session"), FunctionRules.decide("current_setting", "scalar",
                Map.of("current_setting", Verdict.pure()), Verdict.pure()));
        assertThrows(IllegalStateException.class, () -> FunctionRules.checked(Map.of("read_csv/table", Verdict.pure())));
    }

    @Test
    void shouldPreferTheKindsDecisionThenTheNamesThenSizesThenTheRules() {
        Map<String, Verdict> decisions = Map.of("histogram/table", Verdict.refused("catalog"), "bar", Verdict.sized("width:4"));
        assertEquals(Verdict.refused("catalog"), FunctionRules.decide("histogram", "table", decisions, Verdict.pure()));
        assertEquals(Verdict.pure(), FunctionRules.decide("histogram", "aggregate", decisions, Verdict.pure()));
        assertEquals(Verdict.sized("width:4"), FunctionRules.decide("bar", "scalar", decisions, Verdict.pure()));
        assertEquals(Verdict.sized("count:2"), FunctionRules.decide("repeat", "scalar", decisions, Verdict.pure()));
        // a size spec never loosens a refusal by the rules
        assertEquals(Verdict.refused("unsure"), FunctionRules.decide("repeat", "table", decisions, Verdict.refused("unsure")));
    }

    @Test
    void shouldMergeOverloadsToTheStrictestAndReportTheMixedOnes() {
        List<Classified> all = List.of(new Classified("age", "scalar", Verdict.pure()),
                new Classified("age", "scalar", Verdict.refused("internal")),
                new Classified("abs", "scalar", Verdict.pure()), new Classified("abs", "scalar", Verdict.pure()),
                new Classified("unnest", "table", Verdict.pure()), new Classified("unnest", "scalar", Verdict.pure()));
        assertEquals(List.of(new FunctionRow("abs", "scalar", "pure", ""), new FunctionRow("age", "scalar", "refused", "internal"),
                new FunctionRow("unnest", "scalar", "pure", ""), new FunctionRow("unnest", "table", "pure", "")), FunctionRules.merge(all));
        assertEquals(List.of("age/scalar: pure | refused internal"), FunctionRules.mixedOverloads(all));
    }

    @Test
    void shouldAddSyntaxRowsOnlyWhereTheCatalogListsNoCallableRow() {
        List<FunctionRow> rows = List.of(new FunctionRow("unnest", "table", "pure", ""),
                new FunctionRow("nullif", "scalar", "pure", ""), new FunctionRow("user", "scalar", "refused", "session"));
        List<FunctionRow> out = FunctionRules.withSyntax(rows, List.of("unnest", "nullif", "user", "coalesce"));
        assertEquals(List.of(new FunctionRow("coalesce", "scalar", "pure", "syntax"), new FunctionRow("nullif", "scalar", "pure", ""),
                new FunctionRow("unnest", "scalar", "pure", "syntax"), new FunctionRow("unnest", "table", "pure", ""),
                new FunctionRow("user", "scalar", "refused", "session")), out);
    }

    @Test
    void shouldRejectRowsTheLoaderWouldReject() {
        assertThrows(IllegalArgumentException.class, () -> new FunctionRow("Abs", "scalar", "pure", ""));
        assertThrows(IllegalArgumentException.class, () -> new FunctionRow("abs", "procedure", "pure", ""));
        assertThrows(IllegalArgumentException.class, () -> new FunctionRow("repeat", "scalar", "sized", ""));
        assertThrows(IllegalArgumentException.class, () -> new FunctionRow("read_csv", "table", "refused", ""));
    }

    @Test
    void shouldListEveryKindOfDifferenceFromTheCommittedFile() {
        FunctionCatalogs.Generated now = new FunctionCatalogs.Generated("duckdb", "DuckDB v2", "test", List.of(
                new FunctionRow("abs", "scalar", "pure", ""), new FunctionRow("acos", "scalar", "pure", ""),
                new FunctionRow("repeat", "scalar", "sized", "count:2")), List.of());
        assertEquals(List.of(), FunctionCatalogs.difference(now.tsv(), now));
        String committed = now.tsv().replace("DuckDB v2", "DuckDB v1").replace("abs\tscalar\tpure\t\n", "")
                .replace("acos\tscalar\tpure\t", "acos\tscalar\trefused\tunsure") + "gone\tscalar\tpure\t\n";
        assertEquals(List.of("engine: DuckDB v1 -> DuckDB v2", "+ abs\tscalar\tpure\t", "~ acos\tscalar\trefused\tunsure  ->  pure\t",
                "- gone\tscalar\tpure\t"), FunctionCatalogs.difference(committed, now));
        assertTrue(now.tsv().contains("# regenerate: " + FunctionCatalogs.REGENERATE));
        assertEquals("duckdb: 3 rows (3 names): 2 pure, 1 sized, 0 refused", now.counts());
    }
}
