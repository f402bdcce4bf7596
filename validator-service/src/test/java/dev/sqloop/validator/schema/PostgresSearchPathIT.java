package dev.sqloop.validator.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.message.Issue;
import dev.sqloop.fewshot.schema.JdbcSchemaSource;
import dev.sqloop.fewshot.schema.SchemaSource.TableInfo;
import dev.sqloop.parse.ObjectName;
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
 * A PostgreSQL role whose {@code search_path} lists two schemas ({@code s1, public}), as the README tells a deployment
 * with tables outside {@code public} to set, and a third schema the path does not list. PostgreSQL itself is the judge:
 * every table name the prompt's schema offers must be one it resolves to that table, and the validator must resolve
 * bare names as it does (first schema of the path holding the name) — not pass a name the engine then cannot find,
 * nor read the shadowed table's columns.
 */
class PostgresSearchPathIT {
    private static final String DB = "search_path_it";
    private static PostgresServer pg;
    private static String url;

    @BeforeAll
    static void database() throws SQLException {
        pg = PostgresServer.shared();
        pg.createDatabase(DB);
        pg.grantReadOnly(DB);
        try (Connection c = pg.superuser(DB); Statement st = c.createStatement()) {
            st.execute("DROP SCHEMA IF EXISTS s1 CASCADE");
            st.execute("DROP SCHEMA IF EXISTS s2 CASCADE");
            st.execute("DROP SCHEMA IF EXISTS \"S2\" CASCADE");
            st.execute("DROP TABLE IF EXISTS public.orders, public.regions");
            st.execute("CREATE SCHEMA s1");
            st.execute("CREATE SCHEMA s2");
            st.execute("CREATE TABLE public.orders (id int, status text)");
            st.execute("CREATE TABLE public.regions (id int, name text)");
            st.execute("CREATE TABLE s1.orders (id int, total numeric)"); // shadows public.orders on the path
            st.execute("CREATE TABLE s1.customers (id int, name text)");
            st.execute("CREATE TABLE s2.secrets (id int, token text)");
            // a schema of its own beside s2, told apart only by its quoted name's case
            st.execute("CREATE SCHEMA \"S2\"");
            st.execute("CREATE TABLE \"S2\".keys (id int, token text)");
            // created quoted, as a schema migrated from another engine is (Chinook's "Album"): found only quoted
            st.execute("CREATE TABLE s1.\"Album\" (\"AlbumId\" int, \"Title\" text, \"user\" text)");
            for (String s : List.of("public", "s1", "s2", "\"S2\"")) {
                st.execute("GRANT USAGE ON SCHEMA " + s + " TO " + PostgresServer.READER);
                st.execute("GRANT SELECT ON ALL TABLES IN SCHEMA " + s + " TO " + PostgresServer.READER);
            }
        }
        // pgjdbc sets the session's search_path from currentSchema
        url = pg.jdbcUrl(DB) + "?currentSchema=s1,public";
    }

    private static Connection reader() throws SQLException {
        return PostgresServer.reader(url);
    }

    private static List<String> offered(Set<String> allowed) throws SQLException {
        return tables(allowed).stream().map(TableInfo::name).sorted().toList();
    }

    private static List<TableInfo> tables(Set<String> allowed) throws SQLException {
        return new JdbcSchemaSource(ds -> reader(), null, ds -> allowed).tables(DB);
    }

    private static SchemaCatalog catalog() throws SQLException {
        return catalog(Set.of());
    }

    private static SchemaCatalog catalog(Set<String> allowed) throws SQLException {
        try (Connection c = reader()) {
            return new JdbcSchemaCatalogLoader(Dialect.POSTGRES, new CatalogLoadOptions(List.of(), allowed, Set.of(), 50, 200)).load(c);
        }
    }

    /** Where PostgreSQL resolves a name: schema.table of the relation, or null when it does not find it. */
    private static String resolvedByPostgres(String name) throws SQLException {
        try (Connection c = reader(); Statement st = c.createStatement();
             var rs = st.executeQuery("SELECT n.nspname || '.' || t.relname FROM pg_class t JOIN pg_namespace n ON n.oid = t.relnamespace"
                     + " WHERE t.oid = to_regclass('" + name + "')")) {
            return rs.next() ? rs.getString(1) : null;
        }
    }

    @Test
    void shouldOfferEveryTableOfThePathByTheNameThePathResolves() throws SQLException {
        // s1's tables and public's unshadowed one bare; the shadowed public.orders qualified; s2 (off the path) absent
        List<String> names = offered(Set.of());
        assertEquals(List.of("Album", "customers", "orders", "public.orders", "regions"), names);
        SchemaCatalog catalog = catalog();
        for (TableInfo table : tables(Set.of())) {
            // as the prompt shows it: PostgreSQL itself must find the table and every column by that text
            String engine = resolvedByPostgres(table.written());
            assertTrue(engine != null, table.written() + " offered but PostgreSQL does not find it");
            try (Connection c = reader(); Statement st = c.createStatement()) {
                st.executeQuery("SELECT " + String.join(", ", table.columns().stream().map(col -> col.written()).toList())
                        + " FROM " + table.written() + " LIMIT 0").close();
            }
            TableSchema validator = catalog.resolve(ObjectName.of(table.name().split("\\."))).orElseThrow(() -> new AssertionError(table.name()));
            // the catalog's own names are lower-cased; their stored case is checked by PostgresIdentifierCaseIT
            assertEquals(engine.toLowerCase(java.util.Locale.ROOT), validator.qualifiedName(), "the validator resolves " + table.name() + " where PostgreSQL does");
        }
        TableInfo album = tables(Set.of()).stream().filter(t -> t.name().equals("Album")).findFirst().orElseThrow();
        assertEquals("\"Album\"", album.written());
        assertEquals(List.of("\"AlbumId\"", "\"Title\"", "\"user\""), album.columns().stream().map(col -> col.written()).toList());
    }

    @Test
    void shouldOfferAnAllowedSchemaOffThePathQualified() throws SQLException {
        assertEquals(List.of("Album", "customers", "orders", "public.orders", "regions", "s2.secrets"), offered(Set.of("s1", "public", "s2")));
        assertEquals("s2.secrets", resolvedByPostgres("s2.secrets"));
        // the path's schemas not all allowed: a bare name may resolve outside the list (the executor refuses it), so
        // the allowed schemas' tables are offered qualified, and nothing else
        assertEquals(List.of("s1.Album", "s1.customers", "s1.orders", "s2.secrets"), offered(Set.of("s1", "s2")));
    }

    @Test
    void shouldResolveBareNamesThroughTheSearchPathAsPostgresDoes() throws SQLException {
        ValidationTarget target = new ValidationTarget(Dialect.POSTGRES, catalog());
        assertEquals(List.of(), StaticValidator.validate("SELECT c.name, o.total FROM customers c JOIN orders o ON o.id = c.id", target, null));
        assertEquals(List.of(), StaticValidator.validate("SELECT name FROM regions", target, null), "public is on the path");
        assertEquals(List.of(), StaticValidator.validate("SELECT status FROM public.orders", target, null));

        // bare orders is s1.orders: public's status column is not there (the engine would say the same)
        Issue shadowed = single(StaticValidator.validate("SELECT status FROM orders", target, null));
        assertEquals(ErrorCategory.COLUMN_NOT_FOUND, shadowed.category(), shadowed.toString());

        // a unique name off the path is not found by PostgreSQL, so not by the validator either
        assertEquals(null, resolvedByPostgres("secrets"));
        Issue offPath = single(StaticValidator.validate("SELECT token FROM secrets", target, null));
        assertEquals(ErrorCategory.TABLE_NOT_FOUND, offPath.category(), offPath.toString());
        assertTrue(offPath.candidates().contains("s2.secrets"), () -> "the qualified name as a candidate: " + offPath.candidates());
        assertEquals(List.of(), StaticValidator.validate("SELECT token FROM s2.secrets", target, null));
    }

    /**
     * An allow-list leaving out a schema of the path: a bare name may resolve there, and the executor refuses every bare
     * name; the validator says so first, with the qualified name to use.
     */
    @Test
    void shouldResolveNoBareNameWhenThePathReachesOutsideTheAllowList() throws SQLException {
        ValidationTarget target = new ValidationTarget(Dialect.POSTGRES, catalog(Set.of("s1", "s2")));
        Issue bare = single(StaticValidator.validate("SELECT total FROM orders", target, null));
        assertEquals(ErrorCategory.TABLE_NOT_FOUND, bare.category(), bare.toString());
        assertTrue(bare.candidates().contains("s1.orders"), () -> "candidates: " + bare.candidates());
        assertEquals(List.of(), StaticValidator.validate("SELECT o.total, s.token FROM s1.orders o JOIN s2.secrets s ON s.id = o.id", target, null));
        assertEquals(ErrorCategory.TABLE_NOT_FOUND, single(StaticValidator.validate("SELECT status FROM public.orders", target, null)).category(),
                "public is not allowed");
        // every schema of the path allowed: bare names resolve as before
        assertEquals(List.of(), StaticValidator.validate("SELECT total FROM orders",
                new ValidationTarget(Dialect.POSTGRES, catalog(Set.of("s1", "public"))), null));
    }

    /**
     * {@code s2} and {@code "S2"} are two schemas to PostgreSQL: an allow-list naming {@code s2} offers and resolves
     * {@code s2}'s tables alone, and one naming {@code "S2"}, quoted, {@code "S2"}'s alone (as the executor enforces it).
     * Before, names were compared ignoring case and both schemas' tables reached the prompt and the validator's catalog.
     */
    @Test
    void shouldTellAnAllowedSchemaFromItsNamesakeOfAnotherCase() throws SQLException {
        assertEquals(List.of("s1.Album", "s1.customers", "s1.orders", "s2.secrets"), offered(Set.of("s1", "s2")));
        ValidationTarget lower = new ValidationTarget(Dialect.POSTGRES, catalog(Set.of("s1", "s2")));
        assertEquals(List.of(), StaticValidator.validate("SELECT token FROM s2.secrets", lower, null));
        assertEquals(ErrorCategory.TABLE_NOT_FOUND, single(StaticValidator.validate("SELECT token FROM \"S2\".keys", lower, null)).category());

        List<TableInfo> quoted = tables(Set.of("s1", "\"S2\""));
        assertEquals(List.of("S2.keys", "s1.Album", "s1.customers", "s1.orders"), quoted.stream().map(TableInfo::name).sorted().toList());
        TableInfo keys = quoted.stream().filter(t -> t.name().equals("S2.keys")).findFirst().orElseThrow();
        assertEquals("S2.keys", resolvedByPostgres(keys.written()), "offered as PostgreSQL finds it: " + keys.written());
        ValidationTarget upper = new ValidationTarget(Dialect.POSTGRES, catalog(Set.of("s1", "\"S2\"")));
        assertEquals(List.of(), StaticValidator.validate("SELECT token FROM \"S2\".keys", upper, null));
        assertEquals(ErrorCategory.TABLE_NOT_FOUND, single(StaticValidator.validate("SELECT token FROM s2.secrets", upper, null)).category());

        assertEquals(List.of("S2.keys", "s1.Album", "s1.customers", "s1.orders", "s2.secrets"), offered(Set.of("s1", "s2", "\"S2\"")),
                "both allowed: both offered, each by its own name");
    }

    private static Issue single(List<Issue> issues) {
        assertEquals(1, issues.size(), issues::toString);
        return issues.getFirst();
    }
}
