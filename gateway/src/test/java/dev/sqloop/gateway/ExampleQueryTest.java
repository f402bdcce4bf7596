package dev.sqloop.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sqloop.common.config.EnvConfig;
import dev.sqloop.common.message.ExampleIds;
import dev.sqloop.common.message.ExampleRecord;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ExampleQueryTest {
    static final GatewayConfig CONFIG = GatewayConfig.fromEnv(new EnvConfig(Map.of("SQLOOP_BOOTSTRAP_SERVERS", "127.0.0.1:1",
            "SQLOOP_DATASOURCE_DEMO_DIALECT", "duckdb", "SQLOOP_DATASOURCE_SALES_DIALECT", "trino")));

    private static ExampleRecord example(String ds, String question, String sql, String source, List<String> tags) {
        return new ExampleRecord(0, ExampleIds.of(ds, question).toString(), ds, question, sql, "duckdb", source, null, null, tags, Instant.EPOCH);
    }

    private static ExampleQuery query(Map<String, List<String>> params) {
        return ExampleQuery.parse(params, CONFIG);
    }

    @Test
    void shouldFilterByDatasourceSourceTextPrefixAndTag() {
        List<ExampleRecord> all = new ArrayList<>(List.of(
                example("demo", "How many orders were urgent?", "SELECT count(*) FROM orders WHERE o_orderpriority = '1-URGENT'", "seed", List.of()),
                example("demo", "Average discount of line items", "SELECT avg(l_discount) FROM lineitem", "auto", List.of("kpi")),
                example("sales", "How many ORDERS per region?", "SELECT region, count(*) FROM orders GROUP BY 1", "manual", List.of("kpi"))));
        all.sort(Comparator.comparing(ExampleRecord::id));
        assertEquals(java.util.Set.of("How many orders were urgent?", "Average discount of line items"),
                java.util.Set.copyOf(questions(query(Map.of("datasource", List.of("demo"))), all, "datasource")));
        assertEquals(List.of("How many ORDERS per region?"), questions(query(Map.of("source", List.of("manual"))), all, "source"));
        assertEquals(2, questions(query(Map.of("q", List.of("orders"))), all, "text in question or SQL").size());
        assertEquals(List.of("Average discount of line items"), questions(query(Map.of("q", List.of("L_DISCOUNT"))), all, "text in SQL"));
        assertEquals(2, questions(query(Map.of("prefix", List.of("how many"))), all, "normalized prefix").size());
        assertEquals(2, questions(query(Map.of("tag", List.of("kpi"))), all, "tag").size());
        assertEquals(List.of("How many ORDERS per region?"),
                questions(query(Map.of("tag", List.of("kpi"), "datasource", List.of("sales"))), all, "filters combine"));
    }

    @Test
    void shouldFilterByOwnerTheTenantThatCreatedIt() {
        ExampleRecord seed = example("demo", "seeded", "SELECT 1", "seed", List.of());
        ExampleRecord mine = new ExampleRecord(0, ExampleIds.of("demo", "mine").toString(), "demo", "mine", "SELECT 2", "duckdb",
                "manual", "tenant-a", null, List.of(), Instant.EPOCH, true);
        ExampleRecord theirs = new ExampleRecord(0, ExampleIds.of("demo", "theirs").toString(), "demo", "theirs", "SELECT 3", "duckdb",
                "auto", "tenant-b", null, List.of(), Instant.EPOCH, true);
        List<ExampleRecord> all = new ArrayList<>(List.of(seed, mine, theirs));
        all.sort(Comparator.comparing(ExampleRecord::id));
        assertEquals(List.of("mine"), questions(query(Map.of("owner", List.of("tenant-a"))), all, "owner"));
        assertEquals(List.of("theirs"), questions(query(Map.of("owner", List.of("tenant-b"))), all, "owner"));
        assertEquals(List.of(), questions(query(Map.of("owner", List.of("tenant-c"))), all, "no such owner"));
    }

    private static List<String> questions(ExampleQuery q, List<ExampleRecord> all, String what) {
        List<String> found = q.page(all.iterator()).examples().stream().map(ExampleRecord::question).toList();
        return all.stream().map(ExampleRecord::question).filter(found::contains).toList();
    }

    @Test
    void shouldPageInIdOrderWithACursorThatSurvivesDeletions() {
        List<ExampleRecord> all = new ArrayList<>();
        for (int i = 0; i < 25; i++) all.add(example("demo", "question " + i, "SELECT " + i, "seed", List.of()));
        all.sort(Comparator.comparing(ExampleRecord::id));
        List<String> seen = new ArrayList<>();
        String cursor = null;
        int pages = 0;
        do {
            ExampleQuery q = query(cursor == null ? Map.of("limit", List.of("10")) : Map.of("limit", List.of("10"), "cursor", List.of(cursor)));
            String from = cursor;
            // the store's range starts at the cursor (inclusive); the page skips the cursor's own record
            ExampleQuery.Page page = q.page(all.stream().filter(e -> from == null || e.id().compareTo(from) >= 0).iterator());
            page.examples().forEach(e -> seen.add(e.id()));
            cursor = page.nextCursor();
            pages++;
            if (pages == 1) all.remove(page.examples().getLast()); // the cursor's example is deleted between pages
        } while (cursor != null);
        assertEquals(3, pages);
        assertEquals(25, seen.size());
        assertEquals(25, seen.stream().distinct().count(), "no example twice");
        assertNull(query(Map.of("limit", List.of("25"))).page(all.iterator()).nextCursor(), "a full last page has no next cursor");
    }

    @Test
    void shouldRefuseUnknownParametersAndBadValuesNamingTheParameter() {
        Map<Map<String, List<String>>, String> bad = Map.of(
                Map.of("datasorce", List.of("demo")), "datasorce",
                Map.of("datasource", List.of("nope")), "datasource",
                Map.of("source", List.of("captured")), "source",
                Map.of("limit", List.of("0")), "limit",
                Map.of("limit", List.of("1001")), "limit",
                Map.of("limit", List.of("ten")), "limit",
                Map.of("q", List.of("x".repeat(501))), "q",
                Map.of("source", List.of("seed", "auto")), "source");
        check(bad);
    }

    /** Malformed values the outside probe found ignored (a cursor), and others of each parameter: each a 400 naming it. */
    @Test
    void shouldRefuseMalformedAndEmptyValuesNamingTheParameter() {
        String id = ExampleIds.of("demo", "q").toString();
        Map<Map<String, List<String>>, String> bad = new java.util.HashMap<>();
        for (String cursor : List.of("not-a-cursor", id.toUpperCase(java.util.Locale.ROOT), "{" + id + "}", id + "0", id.replace("-", ""),
                "' OR 1=1 --", "x".repeat(10_000), "\u0000")) {
            bad.put(Map.of("cursor", List.of(cursor)), "cursor");
        }
        for (String limit : List.of("+5", "-1", "5.0", "0x10", "1e2", "10000", "٥", "99999999999")) bad.put(Map.of("limit", List.of(limit)), "limit");
        for (String name : List.of("datasource", "source", "q", "prefix", "tag", "owner", "limit", "cursor")) {
            bad.put(Map.of(name, List.of("")), name);
            bad.put(Map.of(name, List.of("  ")), name);
        }
        bad.put(Map.of("cursor", List.of(id, id)), "cursor");
        check(bad);
        assertEquals(id, query(Map.of("cursor", List.of(id))).cursor(), "an example id is a cursor");
        assertEquals(25, query(Map.of("limit", List.of(" 25 "))).limit());
    }

    private static void check(Map<Map<String, List<String>>, String> bad) {
        bad.forEach((params, field) -> {
            ApiError e = assertThrows(ApiError.class, () -> query(params), params.toString());
            assertEquals(400, e.status());
            assertEquals(field, e.body().field(), params.toString());
        });
    }

    @Test
    void shouldListOnlyWhatTheViewerMaySee() {
        ExampleRecord seed = new ExampleRecord(0, ExampleIds.of("demo", "s").toString(), "demo", "s", "SELECT 1", "duckdb", "seed", null, null, null, Instant.EPOCH);
        ExampleRecord a = new ExampleRecord(0, ExampleIds.of("demo", "q", "tenant-a").toString(), "demo", "q", "SELECT 2", "duckdb", "auto",
                "tenant-a", null, null, Instant.EPOCH, false);
        ExampleRecord b = new ExampleRecord(0, ExampleIds.of("demo", "q", "tenant-b").toString(), "demo", "q", "SELECT 3", "duckdb", "manual",
                "tenant-b", null, null, Instant.EPOCH, false);
        ExampleRecord shared = new ExampleRecord(0, ExampleIds.of("demo", "p").toString(), "demo", "p", "SELECT 4", "duckdb", "manual",
                "data-team", null, null, Instant.EPOCH, true);
        List<ExampleRecord> all = new java.util.ArrayList<>(List.of(seed, a, b, shared));
        all.sort(java.util.Comparator.comparing(ExampleRecord::id));
        ExampleQuery q = query(Map.of());
        assertEquals(4, q.page(all.iterator()).examples().size(), "a curator (no viewer) sees every example");
        assertEquals(java.util.Set.of(seed, a, shared), java.util.Set.copyOf(q.visibleTo("tenant-a").page(all.iterator()).examples()));
        assertEquals(java.util.Set.of(seed, b, shared), java.util.Set.copyOf(q.visibleTo("tenant-b").page(all.iterator()).examples()));
        assertEquals(java.util.Set.of(seed, shared), java.util.Set.copyOf(q.visibleTo("tenant-c").page(all.iterator()).examples()));
    }
}
