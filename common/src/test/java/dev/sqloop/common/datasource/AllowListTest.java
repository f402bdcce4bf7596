package dev.sqloop.common.datasource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Allow-list entries against the names an engine resolves, compared as that engine compares them. */
class AllowListTest {

    @Test
    void shouldFoldEntriesAsTheEngineFoldsNames() {
        assertEquals("sales", AllowList.canonical(true, "Sales"), "unquoted: lower case, as PostgreSQL folds it");
        assertEquals("\"Sales\"", AllowList.canonical(true, "\"Sales\""), "quoted: its case kept");
        assertEquals("sales", AllowList.canonical(true, "\"sales\""), "quoted in lower case: the same as unquoted");
        assertEquals("sales", AllowList.canonical(false, "\"Sales\""), "an engine matching names ignoring case");
        assertEquals("sales", AllowList.canonical(false, "`Sales`"));
        assertEquals("\"Sales\".orders", AllowList.canonical(true, " \"Sales\".ORDERS "));
        assertEquals("dw.\"a.b\".t", AllowList.canonical(true, "DW.\"a.b\".t"), "a quoted dot is part of the name");
        assertEquals("\"Say \"\"hi\"\"\"", AllowList.canonical(true, "\"Say \"\"hi\"\"\""), "a doubled quote is one quote");
        assertEquals("\"Ärger\"", AllowList.canonical(true, "ÄRGER"), "PostgreSQL folds only ASCII letters of an unquoted name");
        assertEquals("ärger", AllowList.canonical(false, "ÄRGER"));
        for (String entry : List.of("Sales", "\"Sales\"", "\"Sales\".Orders", "dw.\"a.b\".t", "\"Say \"\"hi\"\"\"", "\"unclosed",
                "ÄRGER", "\"Ärger\".x", "ärger")) {
            for (boolean keepsCase : new boolean[] {true, false}) {
                String once = AllowList.canonical(keepsCase, entry);
                assertEquals(once, AllowList.canonical(keepsCase, once), "folding twice changes nothing: " + entry);
            }
        }
    }

    @Test
    void shouldTellAQuotedNameOfAnotherCaseFromTheEntryWhereQuotedNamesKeepTheirCase() {
        AllowList lower = AllowList.of(Dialect.POSTGRES, Set.of(), Set.of("Sales"), Set.of());
        assertTrue(lower.schemaAllowed("sales"));
        assertFalse(lower.schemaAllowed("Sales"), "\"Sales\" is another schema than sales on PostgreSQL");
        assertFalse(lower.schemaAllowed("SALES"));
        AllowList quoted = AllowList.of(Dialect.POSTGRES, Set.of(), Set.of("\"Sales\""), Set.of());
        assertTrue(quoted.schemaAllowed("Sales"));
        assertFalse(quoted.schemaAllowed("sales"));

        AllowList tables = AllowList.of(Dialect.POSTGRES, Set.of(), Set.of(), Set.of("sales.orders", "\"Audit\".\"Log\""));
        assertTrue(tables.tableAllowed(null, "sales", "orders"));
        assertFalse(tables.tableAllowed(null, "Sales", "orders"));
        assertFalse(tables.tableAllowed(null, "sales", "Orders"));
        assertTrue(tables.tableAllowed(null, "Audit", "Log"));
        assertFalse(tables.tableAllowed(null, "audit", "log"));
        assertTrue(tables.tableAllowed("db", "Audit", "Log"), "a catalog the entry does not name");

        AllowList umlaut = AllowList.of(Dialect.POSTGRES, Set.of(), Set.of("ärger"), Set.of());
        assertTrue(umlaut.schemaAllowed("ärger"));
        assertFalse(umlaut.schemaAllowed("Ärger"), "what an unquoted ÄRGER reaches on PostgreSQL");
        assertTrue(AllowList.of(Dialect.POSTGRES, Set.of(), Set.of("ÄRGER"), Set.of()).schemaAllowed("Ärger"));

        assertTrue(lower.bareNamesAllowed(List.of("sales")));
        assertFalse(lower.bareNamesAllowed(List.of("Sales")), "a path resolving bare names in \"Sales\"");
        assertFalse(lower.bareNamesAllowed(List.of()), "an unknown path");
        assertTrue(quoted.bareNamesAllowed(List.of("Sales")));
    }

    @Test
    void shouldMatchIgnoringCaseWhereTheEngineDoes() {
        for (Dialect d : List.of(Dialect.TRINO, Dialect.DUCKDB, Dialect.HIVE, Dialect.SPARKSQL)) {
            AllowList list = AllowList.of(d, Set.of("Hive"), Set.of("\"Sales\""), Set.of("sales.Orders"));
            assertTrue(list.catalogAllowed("HIVE"), d.toString());
            assertTrue(list.schemaAllowed("sales"), d.toString());
            assertTrue(list.tableAllowed("hive", "SALES", "orders"), d.toString());
            assertFalse(list.tableAllowed("hive", "sales", "items"), d.toString());
            assertFalse(list.catalogAllowed("system"), d.toString());
            assertTrue(list.bareNamesAllowed(List.of("SALES")), d.toString());
        }
    }

    @Test
    void shouldAllowEverythingWithoutLists() {
        AllowList none = AllowList.of(Dialect.POSTGRES, null, Set.of(), Set.of());
        assertFalse(none.restricts());
        assertTrue(none.tableAllowed("any", "Schema", "Table"));
        assertTrue(none.bareNamesAllowed(List.of()));
        assertTrue(AllowList.of(Dialect.POSTGRES, Set.of(), Set.of(), Set.of("t")).restricts());
    }

    @Test
    void shouldKeepTheFoldedEntriesInTheDatasource() {
        DatasourceConfig pg = DatasourceConfig.of("w", Dialect.POSTGRES, "jdbc:postgresql://h/db", "u", null)
                .withAllowed(Set.of(), Set.of("Sales", "\"Audit\""), Set.of());
        assertEquals(Set.of("sales", "\"Audit\""), pg.allowedSchemas());
        // copied through another with-method: the folded entries fold to themselves
        assertEquals(pg.allowedSchemas(), pg.withLimits(10, null).allowedSchemas());
        assertTrue(pg.schemaAllowed("Audit"));
        assertFalse(pg.schemaAllowed("audit"));
        assertFalse(pg.tableAllowed(null, "Sales", "orders"));
    }
}
