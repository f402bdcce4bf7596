package dev.sqloop.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.error.ErrorCategory;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Names written without their schema or catalog, against the allow-lists: where the session resolves them decides.
 * The session is asked only when such a name is there to check (the real sessions: PostgresSafeguardsIT).
 */
class AllowListCheckTest {
    private static final DatasourceConfig TRINO = DatasourceConfig.of("dw", Dialect.TRINO, "jdbc:trino://h:1/hive/sales", "u", null);

    private static Supplier<AllowListCheck.SessionScope> session(AtomicInteger asked, String catalog, String... schemas) {
        return () -> {
            asked.incrementAndGet();
            return new AllowListCheck.SessionScope(catalog, List.of(schemas));
        };
    }

    @Test
    void shouldNotAskTheSessionWhenEveryNameIsQualifiedOrNothingIsRestricted() {
        AtomicInteger asked = new AtomicInteger();
        DatasourceConfig sales = TRINO.withAllowed(Set.of(), Set.of("sales"), Set.of());
        assertNull(AllowListCheck.refusal(sales, "SELECT * FROM sales.orders o JOIN sales.items i ON o.id = i.id", session(asked, "hive", "hr")));
        assertNull(AllowListCheck.refusal(TRINO, "SELECT * FROM orders", session(asked, "hive", "hr")));
        assertEquals(0, asked.get());
    }

    @Test
    void shouldLetABareNameThroughOnlyWhereTheSessionResolvesItInAnAllowedSchema() {
        AtomicInteger asked = new AtomicInteger();
        DatasourceConfig sales = TRINO.withAllowed(Set.of(), Set.of("Sales"), Set.of());
        assertNull(AllowListCheck.refusal(sales, "SELECT * FROM orders o JOIN items i ON o.id = i.id", session(asked, "hive", "sales")));
        assertEquals(1, asked.get(), "asked once per query, not per name");

        EngineError e = AllowListCheck.refusal(sales, "SELECT * FROM sales.orders o JOIN items i ON o.id = i.id", session(asked, "hive", "hr"));
        assertEquals(ErrorCategory.TABLE_NOT_FOUND, e.category());
        assertEquals("items", e.identifier());
        assertTrue(e.message().contains("without its schema") && e.message().contains("schema hr"), e.message());

        assertTrue(AllowListCheck.refusal(sales, "SELECT * FROM orders", session(asked, "hive")).message().contains("no known schema"),
                "a session naming no schema resolves no bare name the list allows");
        assertTrue(AllowListCheck.refusal(sales, "SELECT * FROM orders", session(asked, "hive", "sales", "public")).message()
                .contains("schemas sales, public"), "every schema of a search path must be allowed");
    }

    @Test
    void shouldCheckTheSessionsCatalogForNamesWithoutOne() {
        AtomicInteger asked = new AtomicInteger();
        DatasourceConfig hive = TRINO.withAllowed(Set.of("hive"), Set.of(), Set.of());
        assertNull(AllowListCheck.refusal(hive, "SELECT * FROM sales.orders", session(asked, "hive", "sales")));
        assertNull(AllowListCheck.refusal(hive, "SELECT * FROM hive.sales.orders", session(asked, "system", "x")));
        EngineError e = AllowListCheck.refusal(hive, "SELECT * FROM sales.orders", session(asked, "system", "sales"));
        assertTrue(e.message().contains("without its catalog") && e.message().contains("catalog system"), e.message());
        assertTrue(AllowListCheck.refusal(hive, "SELECT * FROM orders", session(asked, null, "sales")).message()
                .contains("no known catalog"));
    }

    /** On PostgreSQL a quoted name keeps its case: {@code "Sales"} is not {@code sales} (the real engine: PostgresSafeguardsIT). */
    @Test
    void shouldJudgeANameByTheObjectTheEngineResolvesItTo() {
        AtomicInteger asked = new AtomicInteger();
        DatasourceConfig pg = DatasourceConfig.of("pg", Dialect.POSTGRES, "jdbc:postgresql://h/db", "u", null);
        DatasourceConfig sales = pg.withAllowed(Set.of(), Set.of("sales"), Set.of());
        for (String sql : new String[] {"SELECT * FROM \"Sales\".orders", "SELECT * FROM sales.orders WHERE id IN (SELECT id FROM \"SALES\".orders)"}) {
            EngineError e = AllowListCheck.refusal(sales, sql, session(asked, "db", "sales"));
            assertEquals(ErrorCategory.TABLE_NOT_FOUND, e.category(), sql);
        }
        for (String sql : new String[] {"SELECT * FROM sales.orders", "SELECT * FROM SALES.orders", "SELECT * FROM \"sales\".orders"}) {
            assertNull(AllowListCheck.refusal(sales, sql, session(asked, "db", "sales")), sql);
        }
        DatasourceConfig quoted = pg.withAllowed(Set.of(), Set.of("\"Sales\""), Set.of());
        assertNull(AllowListCheck.refusal(quoted, "SELECT * FROM \"Sales\".orders", session(asked, "db", "Sales")));
        assertEquals(ErrorCategory.TABLE_NOT_FOUND, AllowListCheck.refusal(quoted, "SELECT * FROM Sales.orders", session(asked, "db", "Sales")).category());
        assertNull(AllowListCheck.refusal(quoted, "SELECT * FROM orders", session(asked, "db", "Sales")), "the path resolves in \"Sales\"");
        assertTrue(AllowListCheck.refusal(sales, "SELECT * FROM orders", session(asked, "db", "Sales")).message().contains("schema Sales"));
        // PostgreSQL folds only ASCII letters of an unquoted name: an entry ÄRGER is "Ärger", not ärger (a query must
        // quote such a name: the lexical guard refuses letters outside ASCII unquoted)
        DatasourceConfig umlaut = pg.withAllowed(Set.of(), Set.of("ärger"), Set.of());
        assertEquals(ErrorCategory.TABLE_NOT_FOUND, AllowListCheck.refusal(umlaut, "SELECT * FROM \"Ärger\".orders", session(asked, "db", "x")).category());
        assertNull(AllowListCheck.refusal(umlaut, "SELECT * FROM \"ärger\".orders", session(asked, "db", "x")));
        DatasourceConfig upper = pg.withAllowed(Set.of(), Set.of("ÄRGER"), Set.of());
        assertNull(AllowListCheck.refusal(upper, "SELECT * FROM \"Ärger\".orders", session(asked, "db", "x")));
        assertEquals(ErrorCategory.TABLE_NOT_FOUND, AllowListCheck.refusal(upper, "SELECT * FROM \"ÄRGER\".orders", session(asked, "db", "x")).category());
        // an engine matching names ignoring case: the same names are one schema
        assertNull(AllowListCheck.refusal(TRINO.withAllowed(Set.of(), Set.of("sales"), Set.of()), "SELECT * FROM \"Sales\".orders",
                session(asked, "hive", "sales")));
    }

    /** PostgreSQL searches pg_catalog before the path: a bare pg_stats is pg_catalog.pg_stats (the real engine: PostgresSafeguardsIT). */
    @Test
    void shouldRefuseABareNameThatResolvesInASchemaSearchedBeforeThePath() {
        DatasourceConfig pg = DatasourceConfig.of("pg", Dialect.POSTGRES, "jdbc:postgresql://h/db", "u", null);
        Supplier<AllowListCheck.SessionScope> session = () -> new AllowListCheck.SessionScope("db", List.of("public"),
                java.util.Map.of("pg_catalog", Set.of("pg_stats", "pg_roles")));
        DatasourceConfig publicOnly = pg.withAllowed(Set.of(), Set.of("public"), Set.of());
        for (String sql : new String[] {"SELECT * FROM pg_stats", "SELECT a.name FROM author a JOIN PG_ROLES r ON r.rolname = a.name"}) {
            EngineError e = AllowListCheck.refusal(publicOnly, sql, session);
            assertEquals(ErrorCategory.TABLE_NOT_FOUND, e.category(), sql);
            assertTrue(e.message().contains("system schema pg_catalog"), e.message());
        }
        assertNull(AllowListCheck.refusal(publicOnly, "SELECT * FROM author", session));
        assertNull(AllowListCheck.refusal(publicOnly, "SELECT * FROM public.pg_stats", session), "qualified: the user's own table");
        assertNull(AllowListCheck.refusal(pg.withAllowed(Set.of(), Set.of("public", "pg_catalog"), Set.of()), "SELECT * FROM pg_stats", session),
                "a list that names the system schema");
    }
}
