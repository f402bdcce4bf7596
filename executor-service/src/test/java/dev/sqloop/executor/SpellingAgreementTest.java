package dev.sqloop.executor;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.parse.DialectParsers;
import dev.sqloop.parse.SqlRejection;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Differential, over spellings: every refused function of a dialect written every way the engine still reads it as that
 * function — case, quotes, schema, comments and line breaks between name and parenthesis, a {@code --} comment ended by a
 * carriage return, and the ways an engine rewrites text before parsing ({@code U&"…"} escapes, {@code ${…}}
 * substitution) — must be refused by the validator's parse and by the executor alone, each on its own.
 */
class SpellingAgreementTest {
    private static final Map<Dialect, List<String>> REFUSED = Map.of(
            Dialect.POSTGRES, List.of("query_to_xml", "pg_read_file", "set_config", "pg_advisory_lock", "lo_import", "dblink",
                    "current_setting", "pg_sleep", "pg_get_viewdef", "has_table_privilege", "to_regclass"),
            Dialect.DUCKDB, List.of("read_csv", "query", "getvariable", "duckdb_settings", "glob", "read_text", "sniff_csv"),
            Dialect.TRINO, List.of("query", "sleep"),
            Dialect.PRESTO, List.of("query", "sleep"),
            Dialect.HIVE, List.of("reflect", "java_method", "in_file", "get_splits", "current_user", "get_sql_schema"),
            Dialect.SPARKSQL, List.of("reflect", "java_method", "try_reflect", "input_file_name", "current_user"),
            Dialect.CLICKHOUSE, List.of("url", "file", "s3", "remote", "executable", "dictget", "getsetting", "sleepeachrow"));

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void shouldRefuseEverySpellingOfARefusedFunctionInBothLayers(Dialect dialect) {
        DatasourceConfig ds = DatasourceConfig.of("d", dialect, "jdbc:x:", null, null);
        List<String> accepted = new ArrayList<>();
        int texts = 0;
        for (String name : REFUSED.get(dialect)) {
            for (String call : spellings(name, dialect)) {
                String sql = "SELECT " + call + "('x') AS v";
                texts++;
                if (parses(sql, dialect)) accepted.add("validator: " + sql);
                ReadOnlyGuard.Verdict guard = ReadOnlyGuard.check(sql, dialect);
                if (guard.allowed() && AllowListCheck.check(ds, guard.query()) instanceof AllowListCheck.Allowed) {
                    accepted.add("executor: " + sql);
                }
            }
        }
        assertTrue(accepted.isEmpty(), dialect + ": " + accepted.size() + " of " + texts + " spellings accepted, e.g. "
                + accepted.subList(0, Math.min(8, accepted.size())));
        assertTrue(texts >= 10 * REFUSED.get(dialect).size(), "spellings generated: " + texts);
    }

    /** How the engine would still read {@code name} as the function: its own spellings of one name. */
    static Set<String> spellings(String name, Dialect d) {
        Set<String> out = new LinkedHashSet<>();
        String upper = name.toUpperCase(Locale.ROOT);
        String mixed = Character.toUpperCase(name.charAt(0)) + name.substring(1);
        out.add(name);
        out.add(upper);
        out.add(mixed);
        boolean hiveLike = d == Dialect.HIVE || d == Dialect.SPARKSQL;
        char q = hiveLike ? '`' : '"';
        out.add(q + name + q);
        if (d != Dialect.POSTGRES) out.add(q + upper + q); // only PostgreSQL keeps a quoted name's case
        String schema = switch (d) {
            case POSTGRES -> "pg_catalog";
            case DUCKDB -> "main";
            case TRINO, PRESTO -> "system";
            case HIVE, SPARKSQL -> "default";
            case CLICKHOUSE -> "default";
        };
        out.add(schema + "." + name);
        out.add(schema + " . " + q + name + q);
        out.add(name + " ");
        out.add(name + "\n");
        out.add(name + "\t");
        out.add(name + "/* c */");
        out.add(name + "/**/ ");
        out.add(name + " -- c\n");
        out.add(name + " -- c\r");
        out.add("/* a */ " + name);
        if (d == Dialect.POSTGRES) {
            StringBuilder escaped = new StringBuilder("U&\"");
            for (char c : name.toCharArray()) escaped.append(String.format("\\%04x", (int) c));
            out.add(escaped.append('"').toString());
            out.add("U&\"" + name.charAt(0) + "\"" + name.substring(1));
            out.add("u&\"!" + String.format("%04x", (int) name.charAt(0)) + name.substring(1) + "\" UESCAPE '!'");
        }
        if (hiveLike) {
            out.add("${hivevar:f}");
            out.add(name.substring(0, 2) + "${x}" + name.substring(2));
            out.add(name + " -- ${system:line.separator}");
        }
        return out;
    }

    private static boolean parses(String sql, Dialect d) {
        try {
            DialectParsers.forDialect(d).parse(sql);
            return true;
        } catch (SqlRejection r) {
            return false;
        }
    }
}
