package dev.sqloop.fewshot.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sqloop.fewshot.schema.SchemaSource.ColumnInfo;
import dev.sqloop.fewshot.schema.SchemaSource.TableInfo;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sample values of low-cardinality columns, read from a real DuckDB: a table's text columns in one unioned query (an
 * engine where each query costs pays once per table, not once per column), boolean columns apart, and the same values
 * a column at a time when the engine refuses the union.
 */
class JdbcSchemaSourceTest {
    @TempDir
    static Path dir;
    static Path file;

    @BeforeAll
    static void warehouse() throws SQLException {
        file = dir.resolve("samples.duckdb");
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:" + file); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE tickets (id INTEGER, status VARCHAR, priority VARCHAR, title VARCHAR, open BOOLEAN, code CHAR(2))");
            s.execute("INSERT INTO tickets VALUES (1,'open','high','a',true,'x1'),(2,'closed','low','b',false,'x1'),(3,'open','low','c',true,NULL),"
                    + "(4,'closed',NULL,'d',true,'x2'),(5,'open','high','e',false,'x2'),(6,'open','low','f',true,'x2')");
            s.execute("CREATE TABLE notes (id INTEGER, body VARCHAR)");
            s.execute("INSERT INTO notes VALUES (1,'one'),(2,'two')");
            s.execute("CREATE SCHEMA archive");
            s.execute("CREATE TABLE archive.old_tickets (id INTEGER, status VARCHAR)");
            // same name as main.notes, with comments main.notes lacks: remarks must stay with their own schema's table
            s.execute("CREATE TABLE archive.notes (id INTEGER, body VARCHAR)");
            s.execute("COMMENT ON TABLE archive.notes IS 'notes moved out of the main schema'");
            s.execute("COMMENT ON COLUMN archive.notes.body IS 'the archived text'");
            s.execute("CREATE SCHEMA \"Sales\"");
            s.execute("CREATE TABLE \"Sales\".orders (id INTEGER, region VARCHAR)");
            s.execute("INSERT INTO \"Sales\".orders VALUES (1,'north'),(2,'south')");
        }
    }

    /** Opens DuckDB through a proxy that counts the sampling queries and refuses those {@code refuse} matches. */
    private static JdbcSchemaSource source(AtomicInteger queries, Function<String, Boolean> refuse) {
        return source(queries, refuse, "main");
    }

    private static JdbcSchemaSource source(AtomicInteger queries, Function<String, Boolean> refuse, String schema) {
        return new JdbcSchemaSource(ds -> {
            Connection real = DriverManager.getConnection("jdbc:duckdb:" + file);
            return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                    (proxy, method, args) -> {
                        Object out = invoke(method, real, args);
                        if (!method.getName().equals("createStatement")) return out;
                        Statement st = (Statement) out;
                        InvocationHandler h = (p, m, a) -> {
                            if (m.getName().equals("executeQuery")) {
                                if (((String) a[0]).contains("SELECT DISTINCT")) queries.incrementAndGet();
                                if (refuse.apply((String) a[0])) throw new SQLException("refused by the test: " + a[0]);
                            }
                            return invoke(m, st, a);
                        };
                        return Proxy.newProxyInstance(Statement.class.getClassLoader(), new Class<?>[] {Statement.class}, h);
                    });
        }, schema);
    }

    private static Object invoke(java.lang.reflect.Method m, Object target, Object[] args) throws Throwable {
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private static Map<String, List<String>> samples(JdbcSchemaSource source, String table) throws SQLException {
        TableInfo t = source.tables("x").stream().filter(i -> i.name().equals(table)).findFirst().orElseThrow();
        return t.columns().stream().collect(Collectors.toMap(ColumnInfo::name, ColumnInfo::sampleValues));
    }

    @Test
    void shouldReadATablesTextColumnsInOneQueryAndBooleansApart() throws Exception {
        AtomicInteger queries = new AtomicInteger();
        Map<String, List<String>> tickets = samples(source(queries, sql -> false), "tickets");
        assertEquals(List.of("closed", "open"), tickets.get("status"));
        assertEquals(List.of("high", "low"), tickets.get("priority"), "nulls are no sample");
        assertEquals(List.of(), tickets.get("title"), "six distinct titles: not low cardinality");
        assertEquals(List.of("x1", "x2"), tickets.get("code"));
        assertEquals(List.of("false", "true"), tickets.get("open"));
        assertEquals(List.of(), tickets.get("id"), "numbers get no samples");
        // tickets: one union for status, priority, title, code + one for the boolean; notes: its single text column
        assertEquals(3, queries.get(), "one query per table's text columns, one per boolean column");
    }

    /**
     * Without a schema name the connection's own schema is read: a table of another schema would reach the prompt by its
     * bare name, which the engine resolves in this one; named, that other schema is read, its tables as schema.table.
     */
    @Test
    void shouldReadTheConnectionsOwnSchemaWhenNoneIsNamed() throws Exception {
        assertEquals(List.of("notes", "tickets"), names(source(new AtomicInteger(), sql -> false, null)));
        // a configured schema other than the session's: read, but its names qualified (a bare one resolves in main)
        assertEquals(List.of("archive.notes", "archive.old_tickets"), names(source(new AtomicInteger(), sql -> false, "archive")));
        assertEquals(List.of("notes", "tickets"), names(source(new AtomicInteger(), sql -> false, "main")));
    }

    /**
     * A connection that names no schema of its own (a Trino URL with only a catalog) resolves no bare name: every table
     * is offered as schema.table.
     */
    @Test
    void shouldQualifyEveryTableWhenTheConnectionNamesNoSchema() throws Exception {
        JdbcSchemaSource noSchema = new JdbcSchemaSource(ds -> {
            Connection real = DriverManager.getConnection("jdbc:duckdb:" + file);
            return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                    (proxy, method, args) -> method.getName().equals("getSchema") ? null : invoke(method, real, args));
        }, null);
        assertEquals(List.of("Sales.orders", "archive.notes", "archive.old_tickets", "main.notes", "main.tickets"), names(noSchema));
        TableInfo tickets = noSchema.tables("x").stream().filter(t -> t.name().equals("main.tickets")).findFirst().orElseThrow();
        assertEquals(List.of("closed", "open"), tickets.columns().stream().filter(c -> c.name().equals("status")).findFirst()
                .orElseThrow().sampleValues(), "samples still read from the table");
    }

    /**
     * A datasource whose queries may also read other schemas ({@code _ALLOWED_SCHEMAS}) is offered their tables too, as
     * schema.table (a bare name would resolve in its own schema), each with its own schema's comments; a schema the list
     * names in another case (the list is lower case) is found as the engine spells it, one it does not name stays out,
     * and when it leaves out the connection's own schema no table is offered by a bare name.
     */
    @Test
    void shouldOfferTheAllowedSchemasTablesQualifiedBesideItsOwn() throws Exception {
        JdbcSchemaSource allowed = new JdbcSchemaSource(ds -> DriverManager.getConnection("jdbc:duckdb:" + file), null,
                ds -> Set.of("main", "sales"));
        assertEquals(List.of("Sales.orders", "notes", "tickets"), names(allowed));
        TableInfo orders = table(allowed, "Sales.orders");
        assertEquals(List.of("north", "south"), orders.columns().get(1).sampleValues(), "samples read from the qualified table");

        JdbcSchemaSource archive = new JdbcSchemaSource(ds -> DriverManager.getConnection("jdbc:duckdb:" + file), null,
                ds -> Set.of("main", "archive"));
        assertEquals(List.of("archive.notes", "archive.old_tickets", "notes", "tickets"), names(archive));
        assertEquals("notes moved out of the main schema", table(archive, "archive.notes").description());
        assertEquals("the archived text", table(archive, "archive.notes").columns().get(1).description());
        assertEquals("", table(archive, "notes").description(), "main.notes has no comment of its own");
        assertEquals("", table(archive, "notes").columns().get(1).description());

        // its own schema not allowed: a bare name would resolve there (the executor refuses it), so none is offered bare
        JdbcSchemaSource archiveOnly = new JdbcSchemaSource(ds -> DriverManager.getConnection("jdbc:duckdb:" + file), null,
                ds -> Set.of("archive"));
        assertEquals(List.of("archive.notes", "archive.old_tickets"), names(archiveOnly));
    }

    @Test
    void shouldReadTheOwnSchemaFirstThenEachAllowedOneOnce() {
        assertEquals(Arrays.asList((String) null), JdbcSchemaSource.scopes(List.of(), Set.of(), false));
        assertEquals(List.of("main"), JdbcSchemaSource.scopes(List.of("main"), Set.of(), false));
        assertEquals(List.of("Main", "a", "b"), JdbcSchemaSource.scopes(List.of("Main"), Set.of("b", "main", "a"), false));
        assertEquals(List.of("s2", "S2"), JdbcSchemaSource.scopes(List.of("s2"), Set.of("S2", "s2"), true), "PostgreSQL: two schemas");
        assertEquals(List.of("s1", "public", "a"), JdbcSchemaSource.scopes(List.of("s1", "public"), Set.of("public", "a"), true));
        assertEquals(List.of("a", "b"), JdbcSchemaSource.scopes(List.of(), Set.of("b", "a"), false));
    }

    /**
     * A database whose tables all live outside the session's schema (DuckDB's main is empty), with no allow-list or
     * schema configured to say where: the prompt offers them qualified rather than no table at all.
     */
    @Test
    void shouldOfferEveryUserSchemaWhenTheSessionsOwnHoldsNoTable() throws SQLException {
        Path elsewhere = dir.resolve("elsewhere.duckdb");
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:" + elsewhere); Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA analytics");
            s.execute("CREATE TABLE analytics.orders (id INTEGER, region VARCHAR)");
            s.execute("CREATE VIEW analytics.big_orders AS SELECT * FROM analytics.orders WHERE id > 10");
            s.execute("CREATE SCHEMA staging");
            s.execute("CREATE TABLE staging.raw_orders (payload VARCHAR)");
        }
        JdbcSchemaSource source = new JdbcSchemaSource(ds -> DriverManager.getConnection("jdbc:duckdb:" + elsewhere), null);
        assertEquals(List.of("analytics.big_orders", "analytics.orders", "staging.raw_orders"),
                source.tables("x").stream().map(TableInfo::name).sorted().toList());
        // a database with tables in its own schema keeps offering those alone
        assertEquals(List.of("notes", "tickets"), new JdbcSchemaSource(ds -> DriverManager.getConnection("jdbc:duckdb:" + file), null)
                .tables("x").stream().map(TableInfo::name).sorted().toList());
    }

    private static TableInfo table(JdbcSchemaSource source, String name) throws SQLException {
        return source.tables("x").stream().filter(t -> t.name().equals(name)).findFirst().orElseThrow();
    }

    private static List<String> names(JdbcSchemaSource source) throws SQLException {
        return source.tables("x").stream().map(TableInfo::name).sorted().toList();
    }

    @Test
    void shouldFallBackToAColumnAtATimeWhenTheEngineRefusesTheUnion() throws Exception {
        AtomicInteger queries = new AtomicInteger();
        Map<String, List<String>> tickets = samples(source(queries, sql -> sql.contains("UNION ALL")), "tickets");
        assertEquals(List.of("closed", "open"), tickets.get("status"));
        assertEquals(List.of("high", "low"), tickets.get("priority"));
        assertEquals(List.of(), tickets.get("title"));
        assertEquals(List.of("x1", "x2"), tickets.get("code"));
        assertEquals(List.of("false", "true"), tickets.get("open"));        assertEquals(1 + 4 + 1 + 1, queries.get(), "the refused union, each text column, the boolean, notes' one column");
    }

}
