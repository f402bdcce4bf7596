package dev.sqloop.validator.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.message.Issue;
import dev.sqloop.parse.DialectParsers;
import dev.sqloop.parse.SqlRejection;
import dev.sqloop.validator.schema.InMemorySchemaCatalog;
import dev.sqloop.validator.schema.SchemaCatalog;
import dev.sqloop.validator.schema.TableSchema;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * PostgreSQL reads an unquoted name in lower case and a quoted one as written: a table created as {@code "Album"} (as
 * schemas migrated from other engines are) is found by {@code "Album"} only, and {@code artist} by {@code artist},
 * {@code Artist} or {@code "artist"} but not {@code "Artist"}. The validator must pass what PostgreSQL runs and refuse
 * what it does not find, naming the spelling that works; the case-insensitive engines pass every spelling.
 * PostgresIdentifierCaseIT has PostgreSQL itself judge the same class of queries.
 */
class IdentifierCaseTest {
    private static final TableSchema ALBUM = new TableSchema(null, "public", "Album", columns("AlbumId", "integer", "Title", "text", "ArtistId", "integer"));
    private static final TableSchema ARTIST = new TableSchema(null, "public", "artist", columns("artistid", "integer", "name", "text"));

    private static SchemaCatalog catalog() {
        return InMemorySchemaCatalog.builder().table(ALBUM).table(ARTIST).defaultSchema("public").searchPath(List.of("public")).build();
    }

    private static List<Issue> check(Dialect dialect, String sql) throws SqlRejection {
        return SchemaCheck.check(DialectParsers.forDialect(dialect).parse(sql), catalog());
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "SELECT \"Title\" FROM \"Album\"",
        "SELECT \"Title\" FROM public.\"Album\"",
        "SELECT \"Album\".\"Title\" FROM \"Album\"",
        "SELECT a.\"Title\", ar.name FROM \"Album\" a JOIN artist ar ON ar.artistid = a.\"ArtistId\"",
        "SELECT A.\"Title\" FROM \"Album\" AS a",
        "SELECT NAME FROM Artist",
        "SELECT \"name\" FROM \"artist\"",
        "SELECT \"Title\" AS title FROM \"Album\" ORDER BY title",
        "SELECT x.t FROM (SELECT \"Title\" AS t FROM \"Album\") x",
        "WITH t AS (SELECT \"AlbumId\" AS id FROM \"Album\") SELECT id FROM t",
        "SELECT count(*) FROM \"Album\" WHERE \"Title\" LIKE 'A%'",
    })
    void shouldPassWhatPostgresFinds(String sql) throws SqlRejection {
        assertEquals(List.of(), check(Dialect.POSTGRES, sql));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "SELECT \"Title\" FROM Album                | TABLE_NOT_FOUND  | \"Album\"",
        "SELECT \"Title\" FROM \"ALBUM\"            | TABLE_NOT_FOUND  | \"Album\"",
        "SELECT \"Title\" FROM public.album         | TABLE_NOT_FOUND  | public.\"Album\"",
        "SELECT name FROM \"Artist\"                | TABLE_NOT_FOUND  | artist",
        "SELECT Title FROM \"Album\"                | COLUMN_NOT_FOUND | \"Title\"",
        "SELECT a.albumid FROM \"Album\" a          | COLUMN_NOT_FOUND | \"AlbumId\"",
        "SELECT \"Name\" FROM artist                | COLUMN_NOT_FOUND | name",
        "SELECT Album.\"Title\" FROM \"Album\"      | COLUMN_NOT_FOUND | \"Album\"",
        "SELECT \"Title\" FROM \"Album\" WHERE ArtistId = 1 | COLUMN_NOT_FOUND | \"ArtistId\"",
    })
    void shouldRefuseWhatPostgresDoesNotFindNamingTheSpellingThatWorks(String sql, ErrorCategory category, String spelling) throws SqlRejection {
        List<Issue> issues = check(Dialect.POSTGRES, sql);
        assertEquals(1, issues.size(), issues::toString);
        Issue issue = issues.getFirst();
        assertEquals(category, issue.category(), issue::toString);
        assertEquals(List.of(spelling), issue.candidates(), issue::toString);
        assertTrue(issue.message().contains("lower case"), issue::message);
    }

    /** Trino, Presto and DuckDB find a name whatever its case, quoted or not: no spelling is an error there. */
    @ParameterizedTest
    @ValueSource(strings = {
        "SELECT \"Title\" FROM Album",
        "SELECT \"Title\" FROM \"ALBUM\"",
        "SELECT Title FROM \"Album\"",
        "SELECT a.albumid FROM \"Album\" a",
        "SELECT \"Name\" FROM artist",
        "SELECT Album.\"Title\" FROM \"Album\"",
    })
    void shouldPassEverySpellingWhereTheEngineIgnoresCase(String sql) throws SqlRejection {
        for (Dialect d : List.of(Dialect.TRINO, Dialect.PRESTO, Dialect.DUCKDB)) assertEquals(List.of(), check(d, sql), d + ": " + sql);
    }

    private static Map<String, String> columns(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) m.put(kv[i], kv[i + 1]);
        return m;
    }
}
