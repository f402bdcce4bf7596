package dev.sqloop.validator.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.message.Issue;
import dev.sqloop.fewshot.schema.JdbcSchemaSource;
import dev.sqloop.fewshot.schema.SchemaSource.ColumnInfo;
import dev.sqloop.fewshot.schema.SchemaSource.TableInfo;
import dev.sqloop.testkit.engines.PostgresServer;
import dev.sqloop.validator.StaticValidator;
import dev.sqloop.validator.ValidationTarget;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The relations PostgreSQL's {@code information_schema} gets wrong for a reader of an analytics database. A materialized
 * view, which it does not list: the prompt's schema must show it with its columns, the validator must pass a query that
 * reads it (PostgreSQL runs it) and check its columns, and one the role may not read stays out of both. A partitioned
 * table, whose partitions it lists beside the table: the prompt shows the table alone, the validator accepts both. An
 * enum column, which it types {@code USER-DEFINED}: shown as an enum with its values, and indexed, so a value PostgreSQL
 * would refuse ({@code 'Shipped'}) is caught before it runs; an array column, which it types {@code ARRAY}: shown with
 * its element type.
 */
class PostgresRelationKindsIT {
    private static final String DB = "matview_it";
    private static String url;

    @BeforeAll
    static void database() throws SQLException {
        url = PostgresServer.shared().readOnlyDatabase(DB,
                "DROP MATERIALIZED VIEW IF EXISTS public.sales_by_region, public.payroll_totals",
                "DROP TABLE IF EXISTS public.sales, public.payroll, public.events, public.orders",
                "DROP TYPE IF EXISTS public.order_status",
                "CREATE TYPE public.order_status AS ENUM ('pending', 'shipped', 'cancelled')",
                "CREATE TABLE public.orders (id int, status public.order_status, tags text[], history public.order_status[])",
                "INSERT INTO public.orders VALUES (1, 'pending', '{gift}', '{pending}'), (2, 'shipped', '{}', '{pending,shipped}'), (3, 'shipped', NULL, NULL)",
                "CREATE TABLE public.events (day date, kind text) PARTITION BY RANGE (day)",
                "CREATE TABLE public.events_2024 PARTITION OF public.events FOR VALUES FROM ('2024-01-01') TO ('2025-01-01')",
                "CREATE TABLE public.events_2025 PARTITION OF public.events FOR VALUES FROM ('2025-01-01') TO ('2026-01-01')",
                "INSERT INTO public.events VALUES ('2024-03-01', 'click'), ('2025-03-01', 'view')",
                "CREATE TABLE public.sales (region text, amount numeric)",
                "INSERT INTO public.sales VALUES ('north', 10), ('south', 5), ('north', 2)",
                "CREATE MATERIALIZED VIEW public.sales_by_region AS SELECT region, sum(amount) AS total FROM public.sales GROUP BY region",
                "CREATE TABLE public.payroll (employee text, salary numeric)",
                "CREATE MATERIALIZED VIEW public.payroll_totals AS SELECT sum(salary) AS total FROM public.payroll");
        try (Connection c = PostgresServer.shared().superuser(DB); Statement st = c.createStatement()) {
            st.execute("REVOKE SELECT ON public.payroll, public.payroll_totals FROM " + PostgresServer.READER);
        }
    }

    @Test
    void shouldShowMaterializedViewsAndPartitionedTablesAsAReaderUsesThem() throws SQLException {
        List<TableInfo> offered = new JdbcSchemaSource(ds -> PostgresServer.reader(url), null, ds -> Set.of()).tables(DB);
        assertEquals(List.of("events", "orders", "sales", "sales_by_region"), offered.stream().map(TableInfo::name).sorted().toList(),
                "the materialized view the role may read is offered, the one it may not is not; the partitioned table without its partitions");
        TableInfo view = offered.stream().filter(t -> t.name().equals("sales_by_region")).findFirst().orElseThrow();
        assertEquals(List.of("region", "total"), view.columns().stream().map(ColumnInfo::name).toList());
        assertEquals(List.of("north", "south"), view.columns().getFirst().sampleValues(), "sampled like a table");

        ColumnInfo status = offered.stream().filter(t -> t.name().equals("orders")).findFirst().orElseThrow().columns().get(1);
        assertEquals("enum order_status", status.type());
        assertEquals(List.of("integer", "enum order_status", "text[]", "order_status[]"),
                offered.stream().filter(t -> t.name().equals("orders")).findFirst().orElseThrow().columns().stream().map(ColumnInfo::type).toList(),
                "arrays by their element type, not ARRAY");
        assertEquals(List.of(), offered.stream().filter(t -> t.name().equals("orders")).findFirst().orElseThrow().columns().get(2).sampleValues(),
                "an array column is not sampled");
        assertEquals(List.of("pending", "shipped"), status.sampleValues());

        SchemaCatalog catalog;
        try (Connection c = PostgresServer.reader(url)) {
            catalog = new JdbcSchemaCatalogLoader(Dialect.POSTGRES, new CatalogLoadOptions(List.of(), Set.of(), Set.of(), 50, 200)).load(c);
        }
        ValidationTarget target = new ValidationTarget(Dialect.POSTGRES, catalog);
        String sql = "SELECT region, total FROM sales_by_region WHERE region = 'north' ORDER BY total DESC";
        assertEquals(List.of(), StaticValidator.validate(sql, target, null));
        try (Connection c = PostgresServer.reader(url); Statement st = c.createStatement(); var rs = st.executeQuery(sql)) {
            assertEquals(true, rs.next(), "PostgreSQL runs what the validator passed");
        }
        List<Issue> column = StaticValidator.validate("SELECT amount FROM sales_by_region", target, null);
        assertEquals(ErrorCategory.COLUMN_NOT_FOUND, column.getFirst().category(), column::toString);
        TableSchema indexed = catalog.resolve(dev.sqloop.parse.ObjectName.of("sales_by_region")).orElseThrow();
        assertEquals(List.of("north", "south"), catalog.values(indexed, "region").orElseThrow().stream().sorted().toList(),
                "its text columns are indexed");
        assertEquals(List.of(), StaticValidator.validate("SELECT count(*) FROM events WHERE kind = 'click'", target, null));
        assertEquals(List.of(), StaticValidator.validate("SELECT count(*) FROM events_2024", target, null), "a partition is still a table");
        String enumFilter = "SELECT count(*) FROM orders WHERE status = 'Shipped'";
        List<Issue> wrongCase = StaticValidator.validate(enumFilter, target, null);
        assertEquals(ErrorCategory.CONSTRAINT_VIOLATION, wrongCase.getFirst().category(), wrongCase::toString);
        assertEquals(List.of("shipped"), wrongCase.getFirst().candidates());
        try (Connection c = PostgresServer.reader(url); Statement st = c.createStatement()) {
            assertEquals("22P02", assertThrows(SQLException.class, () -> st.executeQuery(enumFilter)).getSQLState(),
                    "PostgreSQL refuses it too");
        }
        assertEquals(List.of(), StaticValidator.validate("SELECT count(*) FROM orders WHERE status = 'shipped'", target, null));
        List<Issue> hidden = StaticValidator.validate("SELECT total FROM payroll_totals", target, null);
        assertFalse(hidden.isEmpty(), "a materialized view the role may not read is not in the catalog");
        assertEquals(ErrorCategory.TABLE_NOT_FOUND, hidden.getFirst().category(), hidden::toString);
    }
}
