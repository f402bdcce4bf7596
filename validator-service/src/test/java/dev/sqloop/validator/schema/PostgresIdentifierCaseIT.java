package dev.sqloop.validator.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.message.Issue;
import dev.sqloop.parse.ObjectName;
import dev.sqloop.testkit.engines.PostgresServer;
import dev.sqloop.validator.StaticValidator;
import dev.sqloop.validator.ValidationTarget;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL as the judge of identifier case: a table created quoted ({@code "Album"} with {@code "Title"}, as a
 * schema migrated from another engine is), one created plain ({@code artist}) and one whose name differs from the first
 * in case only ({@code album}, with a {@code "Title"} too), every query of a cross product of
 * spellings (quoted or not, each case) run on PostgreSQL and checked by the validator. The validator must pass exactly
 * what PostgreSQL runs: a spelling it passes and PostgreSQL cannot find costs a warehouse round trip and an execution
 * error instead of a precise correction; one it refuses and PostgreSQL runs is a false refusal.
 */
class PostgresIdentifierCaseIT {
    private static final String DB = "identifier_case_it";
    private static String url;

    @BeforeAll
    static void database() throws SQLException {
        url = PostgresServer.shared().readOnlyDatabase(DB,
                "DROP TABLE IF EXISTS public.\"Album\", public.album, public.artist",
                "CREATE TABLE public.\"Album\" (\"AlbumId\" int, \"Title\" text, \"ArtistId\" int)",
                // a second table whose name differs in case only: Album, ALBUM and "album" are this one
                "CREATE TABLE public.album (\"Title\" text, year int)",
                "INSERT INTO public.album VALUES ('Draft', 1990)",
                "CREATE TABLE public.artist (artistid int, name text)",
                "INSERT INTO public.\"Album\" VALUES (1, 'For Those About To Rock', 1), (2, 'Balls to the Wall', 2)",
                "INSERT INTO public.artist VALUES (1, 'AC/DC'), (2, 'Accept')",
                "DROP TABLE IF EXISTS public.logins",
                "CREATE TABLE public.logins (\"user\" text, day date)",
                "INSERT INTO public.logins VALUES ('alice', '2024-01-01')");
    }

    private static Connection reader() throws SQLException {
        return PostgresServer.reader(url);
    }

    private static SchemaCatalog catalog() throws SQLException {
        try (Connection c = reader()) {
            return new JdbcSchemaCatalogLoader(Dialect.POSTGRES, new CatalogLoadOptions(List.of(), Set.of(), Set.of(), 50, 200)).load(c);
        }
    }

    /** Null when PostgreSQL runs the query, else its error. */
    private static String postgresError(String sql) throws SQLException {
        try (Connection c = reader(); Statement st = c.createStatement()) {
            st.executeQuery(sql).close();
            return null;
        } catch (SQLException e) {
            // an unknown table (42P01) or column (42703) is what this test varies; anything else is the test's own fault
            assertTrue(Set.of("42P01", "42703").contains(e.getSQLState()), () -> sql + ": " + e.getMessage());
            return e.getMessage();
        }
    }

    private static List<String> spellings(String name) {
        return List.of(name, '"' + name + '"', name.toLowerCase(), '"' + name.toLowerCase() + '"', name.toUpperCase(), '"' + name.toUpperCase() + '"');
    }

    @Test
    void shouldPassExactlyWhatPostgresRuns() throws SQLException {
        ValidationTarget target = new ValidationTarget(Dialect.POSTGRES, catalog());
        List<String> queries = new ArrayList<>();
        for (String table : spellings("Album")) {
            for (String column : spellings("Title")) {
                queries.add("SELECT " + column + " FROM " + table);
                queries.add("SELECT a." + column + " FROM public." + table + " a WHERE a.\"AlbumId\" > 0");
                queries.add("SELECT " + table + "." + column + " FROM \"Album\"");
            }
        }
        for (String table : spellings("artist")) {
            for (String column : spellings("Name")) {
                queries.add("SELECT " + column + " FROM " + table + " ORDER BY 1");
                queries.add("SELECT count(*) FROM \"Album\" al JOIN " + table + " ar ON ar.artistid = al.\"ArtistId\" WHERE ar." + column + " <> ''");
            }
        }
        List<String> disagreements = new ArrayList<>();
        int runs = 0;
        for (String sql : queries) {
            String engine = postgresError(sql);
            List<Issue> issues = StaticValidator.validate(sql, target, null);
            boolean passes = !StaticValidator.hasErrors(issues);
            if (engine == null) runs++;
            if (passes != (engine == null)) disagreements.add(sql + "\n    PostgreSQL: " + (engine == null ? "runs" : engine) + "\n    validator: " + issues);
            if (engine != null && !passes) {
                Issue first = issues.stream().filter(Issue::error).findFirst().orElseThrow();
                assertTrue(first.category() == ErrorCategory.TABLE_NOT_FOUND || first.category() == ErrorCategory.COLUMN_NOT_FOUND, first::toString);
            }
        }
        System.out.printf("identifier case: %d queries, %d run on PostgreSQL, %d validator disagreements%n", queries.size(), runs, disagreements.size());
        assertTrue(runs > 10 && runs < queries.size() - 10, "the product mixes spellings PostgreSQL finds and does not: " + runs);
        assertEquals(List.of(), disagreements, () -> String.join("\n", disagreements));
    }

    /**
     * A column named like a keyword PostgreSQL reads as a value ({@code user}: the session's role): unquoted it runs,
     * with the role name in every row; the validator refuses it naming {@code "user"}, and passes the quoted column.
     */
    @Test
    void shouldRefuseAKeywordWrittenForAColumnOfItsName() throws SQLException {
        ValidationTarget target = new ValidationTarget(Dialect.POSTGRES, catalog());
        try (Connection c = reader(); Statement st = c.createStatement();
             var rs = st.executeQuery("SELECT user, \"user\", current_date FROM logins")) {
            rs.next();
            assertEquals(PostgresServer.READER, rs.getString(1), "PostgreSQL reads the unquoted keyword as the role, silently");
            assertEquals("alice", rs.getString(2));
        }
        for (String sql : List.of("SELECT user FROM logins", "SELECT count(*) FROM logins WHERE user = 'alice'",
                "SELECT l.day FROM logins l WHERE current_date > l.day AND user IS NOT NULL")) {
            List<Issue> issues = StaticValidator.validate(sql, target, null);
            assertEquals(ErrorCategory.COLUMN_NOT_FOUND, issues.getFirst().category(), () -> sql + ": " + issues);
            assertEquals(List.of("\"user\""), issues.getFirst().candidates(), issues::toString);
        }
        assertEquals(List.of(), StaticValidator.validate("SELECT \"user\", day FROM logins WHERE day < current_date", target, null),
                "current_date is a value where no column has its name");
        assertEquals(List.of(), StaticValidator.validate("SELECT current_user, session_user FROM logins", target, null));
        List<Issue> missing = StaticValidator.validate("SELECT \"usr\" FROM logins", target, null);
        assertEquals(ErrorCategory.COLUMN_NOT_FOUND, missing.getFirst().category(), "a quoted name is a column, checked");
    }

    /** The spelling the validator names as the fix is one PostgreSQL runs. */
    @Test
    void shouldNameASpellingPostgresRuns() throws SQLException {
        ValidationTarget target = new ValidationTarget(Dialect.POSTGRES, catalog());
        List<Issue> table = StaticValidator.validate("SELECT name FROM \"Artist\"", target, null);
        assertEquals(List.of("artist"), table.getFirst().candidates(), table::toString);
        assertEquals(null, postgresError("SELECT name FROM " + table.getFirst().candidates().getFirst()));
        List<Issue> column = StaticValidator.validate("SELECT Title FROM \"Album\"", target, null);
        assertEquals(List.of("\"Title\""), column.getFirst().candidates(), column::toString);
        assertEquals(null, postgresError("SELECT " + column.getFirst().candidates().getFirst() + " FROM \"Album\""));
    }

    /** The loader reads the values of a table created quoted: it names it as stored ("Album"."Title"). */
    @Test
    void shouldIndexTheValuesOfATableCreatedQuoted() throws SQLException {
        SchemaCatalog catalog = catalog();
        TableSchema album = catalog.resolve(new ObjectName(List.of("Album"), List.of("Album"))).orElseThrow();
        assertEquals("Album", album.spelling().name());
        TableSchema lower = catalog.resolve(new ObjectName(List.of("Album"), List.of("album"))).orElseThrow();
        assertEquals("album", lower.spelling().name());
        assertEquals(List.of("Draft"), catalog.values(lower, "title").orElseThrow());
        assertEquals(List.of("Balls to the Wall", "For Those About To Rock"),
                catalog.values(album, "title").orElseThrow(() -> new AssertionError("no values indexed for \"Album\".\"Title\"")).stream().sorted().toList());
        List<Issue> issues = StaticValidator.validate("SELECT \"AlbumId\" FROM \"Album\" WHERE \"Title\" = 'balls to the wall'", new ValidationTarget(Dialect.POSTGRES, catalog), null);
        assertEquals(ErrorCategory.CONSTRAINT_VIOLATION, issues.getFirst().category(), issues::toString);
    }
}
