package dev.sqloop.testkit.engines;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Translates a PostgreSQL DDL + INSERT script (as in the defog databases) into statements DuckDB accepts:
 * the {@code public} schema becomes DuckDB's default schema, serial types become plain integers (the data
 * carries its ids), an unconstrained {@code numeric} becomes {@code DOUBLE} (DuckDB would default it to
 * DECIMAL(18,3) and round), and statements DuckDB has no use for or cannot run (ownership, comments,
 * extensions, session settings, ALTER … ADD CONSTRAINT) are skipped and reported.
 *
 * <p>The defog data calls {@code TO_CHAR(ts, '%Y%m%d %H:%i:%s')} (broker's settlement-date strings, whose
 * column comment says {@code yyyyMMdd HH:mm:ss}). DuckDB has no {@code to_char}; the {@link #PRELUDE} gives it
 * a load-time temporary macro with that intended meaning. PostgreSQL's own {@code to_char} does not read
 * {@code %} specifiers and stores text like {@code %4%m%3 %H:%4:%s}, so that one column differs between the
 * PostgreSQL and DuckDB copies.
 */
public final class PostgresToDuckDb {
    private static final Pattern PUBLIC = Pattern.compile("(?i)(?<![\\w.\"])\"?public\"?\\.");
    private static final Pattern SERIAL = Pattern.compile("(?i)\\b(small|big)?serial\\b");
    private static final Pattern BARE_NUMERIC = Pattern.compile("(?i)\\b(numeric|decimal)\\b(?!\\s*\\()");
    private static final List<Pattern> SKIPPED = List.of(
            Pattern.compile("(?is)^SET\\s.*"),
            Pattern.compile("(?is)^SELECT\\s+pg_catalog\\.set_config.*"),
            Pattern.compile("(?is)^ALTER\\s+(TABLE|SEQUENCE|SCHEMA|FUNCTION|TYPE)\\s.*\\sOWNER\\s+TO\\s.*"),
            Pattern.compile("(?is)^ALTER\\s+TABLE\\s+(ONLY\\s+)?\\S+\\s+ADD\\s+CONSTRAINT\\s.*"),
            Pattern.compile("(?is)^COMMENT\\s+ON\\s.*"),
            Pattern.compile("(?is)^CREATE\\s+EXTENSION\\s.*"),
            Pattern.compile("(?is)^(GRANT|REVOKE)\\s.*"),
            Pattern.compile("(?is)^CREATE\\s+SCHEMA\\s+(IF\\s+NOT\\s+EXISTS\\s+)?\"?public\"?\\s*$"));

    /** Run first on the loading connection; temporary, so nothing of it stays in the database file. */
    public static final List<String> PRELUDE = List.of(
            "CREATE TEMP MACRO to_char(ts, fmt) AS strftime(ts, replace(replace(fmt, '%i', '%M'), '%s', '%S'))");

    /** The statements to run on DuckDB, and the ones left out. */
    public record Translation(List<String> statements, List<String> skipped) {}

    private PostgresToDuckDb() {}

    public static Translation translate(String postgresScript) {
        List<String> statements = new ArrayList<>();
        List<String> skipped = new ArrayList<>();
        for (String s : SqlScript.split(postgresScript)) {
            if (SKIPPED.stream().anyMatch(p -> p.matcher(s).matches())) {
                skipped.add(s);
            } else {
                statements.add(translateStatement(s));
            }
        }
        return new Translation(List.copyOf(statements), List.copyOf(skipped));
    }

    /** One statement; string literals are left exactly as they are. */
    static String translateStatement(String statement) {
        boolean ddl = statement.stripLeading().toUpperCase(Locale.ROOT).startsWith("CREATE");
        StringBuilder out = new StringBuilder();
        StringBuilder code = new StringBuilder();
        int i = 0;
        int n = statement.length();
        while (i < n) {
            char c = statement.charAt(i);
            if (c == '\'') {
                out.append(rewrite(code.toString(), ddl));
                code.setLength(0);
                int j = i + 1;
                while (j < n) {
                    if (statement.charAt(j) == '\'') {
                        if (j + 1 < n && statement.charAt(j + 1) == '\'') j += 2;
                        else break;
                    } else {
                        j++;
                    }
                }
                out.append(statement, i, Math.min(n, j + 1));
                i = j + 1;
            } else {
                code.append(c);
                i++;
            }
        }
        out.append(rewrite(code.toString(), ddl));
        return out.toString();
    }

    private static String rewrite(String code, boolean ddl) {
        String s = PUBLIC.matcher(code).replaceAll("");
        if (!ddl) return s;
        Matcher m = SERIAL.matcher(s);
        StringBuilder sb = new StringBuilder();
        while (m.find()) {
            String size = m.group(1) == null ? "" : m.group(1).toLowerCase(Locale.ROOT);
            m.appendReplacement(sb, switch (size) {
                case "small" -> "SMALLINT";
                case "big" -> "BIGINT";
                default -> "INTEGER";
            });
        }
        m.appendTail(sb);
        return BARE_NUMERIC.matcher(sb.toString()).replaceAll("DOUBLE");
    }
}
