package dev.sqloop.testkit.engines;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Translates the tables of a PostgreSQL DDL script (as in the defog databases) into Spark SQL / HiveQL external
 * text tables, which Spark Thrift Server and Hive both read with Hive's {@code LazySimpleSerDe}: fields separated
 * by {@code \001}, backslash escapes, {@code \N} for NULL (see {@link #textLine}). Loading by files avoids
 * INSERTs: Spark runs a job per INSERT and Hive a MapReduce job.
 *
 * <p>Types: serials become plain integers (the data carries its ids); {@code varchar(n)}, {@code char(n)},
 * {@code numeric(p,s)} keep their sizes; an unconstrained {@code numeric} becomes {@code DOUBLE} (Spark and Hive
 * would read a bare {@code DECIMAL} as {@code DECIMAL(10,0)} and round); {@code text} is {@code STRING};
 * {@code time} (no such type in either engine) and other types without a counterpart are {@code STRING}s of their
 * PostgreSQL text form; a time-zoned timestamp is a {@code TIMESTAMP} in the session time zone. Every identifier is
 * backtick-quoted, so reserved words ({@code order}, {@code date}, {@code time}) are fine as names. Constraints,
 * defaults and foreign keys have no meaning for a text table and are dropped.
 */
public final class PostgresToHive {
    /** Field separator of the text files (Hive's default, \001): it never occurs in the defog data. */
    public static final char FIELD = '\u0001';
    public static final String NULL = "\\N";
    private static final Pattern CREATE = Pattern.compile(
            "(?is)^CREATE\\s+(?:UNLOGGED\\s+)?TABLE\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?((?:\"[^\"]+\"|[\\w$]+)(?:\\.(?:\"[^\"]+\"|[\\w$]+))?)\\s*\\((.*)\\)\\s*$");
    private static final Set<String> CONSTRAINT_STARTS = Set.of("CONSTRAINT", "PRIMARY", "FOREIGN", "UNIQUE", "CHECK", "EXCLUDE", "LIKE");
    private static final Set<String> COLUMN_OPTIONS = Set.of("NOT", "NULL", "DEFAULT", "PRIMARY", "REFERENCES", "UNIQUE",
            "CHECK", "CONSTRAINT", "COLLATE", "GENERATED");
    private static final Pattern SIZED = Pattern.compile("(?i)^(character varying|varchar|character|char|numeric|decimal)\\s*\\(\\s*(\\d+)\\s*(?:,\\s*(\\d+)\\s*)?\\)$");

    /** A column as Spark/Hive will hold it. */
    public record Column(String name, String type) {}

    /** A table of the script: its name (without the {@code public.} schema) and columns in order. */
    public record Table(String name, List<Column> columns) {}

    private PostgresToHive() {}

    /** The CREATE TABLE statements of a PostgreSQL script, translated; everything else in it is ignored. */
    public static List<Table> tables(String postgresScript) {
        List<Table> out = new ArrayList<>();
        for (String s : SqlScript.split(postgresScript)) {
            Matcher m = CREATE.matcher(s.strip());
            if (m.matches()) out.add(table(m.group(1), m.group(2)));
        }
        return out;
    }

    static Table table(String qualifiedName, String body) {
        String name = unquote(qualifiedName.substring(qualifiedName.lastIndexOf('.') + 1));
        List<Column> columns = new ArrayList<>();
        for (String element : topLevelSplit(body)) {
            String e = element.strip();
            if (e.isEmpty()) continue;
            String first = firstWord(e);
            if (CONSTRAINT_STARTS.contains(first.toUpperCase(Locale.ROOT))) continue;
            columns.add(column(e));
        }
        if (columns.isEmpty()) throw new IllegalArgumentException("no columns in CREATE TABLE " + qualifiedName);
        return new Table(name, List.copyOf(columns));
    }

    private static Column column(String definition) {
        String name;
        String rest;
        if (definition.startsWith("\"")) {
            int close = definition.indexOf('"', 1);
            name = definition.substring(1, close);
            rest = definition.substring(close + 1).strip();
        } else {
            String[] parts = definition.split("\\s+", 2);
            name = parts[0];
            rest = parts.length > 1 ? parts[1] : "";
        }
        // the type runs up to the first column option (NOT NULL, DEFAULT …), outside parentheses
        List<String> typeWords = new ArrayList<>();
        for (String w : rest.split("\\s+(?![^(]*\\))")) {
            if (COLUMN_OPTIONS.contains(w.toUpperCase(Locale.ROOT))) break;
            typeWords.add(w);
        }
        return new Column(name, hiveType(String.join(" ", typeWords)));
    }

    /** The Spark/Hive type for a PostgreSQL type as written in DDL. */
    public static String hiveType(String postgresType) {
        String t = postgresType.strip().toLowerCase(Locale.ROOT).replaceAll("\\s+", " ").replaceAll("\\s*\\(\\s*", "(");
        if (t.endsWith("[]")) throw new IllegalArgumentException("array columns are not translated: " + postgresType);
        Matcher sized = SIZED.matcher(t);
        if (sized.matches()) {
            int n = Integer.parseInt(sized.group(2));
            return switch (sized.group(1)) {
                // Hive's limits: VARCHAR up to 65535, CHAR up to 255
                case "character varying", "varchar" -> n <= 65535 ? "VARCHAR(" + n + ")" : "STRING";
                case "character", "char" -> n <= 255 ? "CHAR(" + n + ")" : "STRING";
                default -> "DECIMAL(" + Math.min(n, 38) + "," + (sized.group(3) == null ? "0" : sized.group(3)) + ")";
            };
        }
        return switch (t) {
            case "smallint", "int2", "smallserial", "serial2" -> "SMALLINT";
            case "integer", "int", "int4", "serial", "serial4" -> "INT";
            case "bigint", "int8", "bigserial", "serial8" -> "BIGINT";
            case "real", "float4" -> "FLOAT";
            case "double precision", "float8", "float", "numeric", "decimal" -> "DOUBLE";
            case "boolean", "bool" -> "BOOLEAN";
            case "date" -> "DATE";
            case "timestamp", "timestamp without time zone", "timestamptz", "timestamp with time zone" -> "TIMESTAMP";
            case "text", "character varying", "varchar", "character", "char", "bpchar", "time", "time without time zone",
                 "timetz", "time with time zone", "interval", "uuid", "json", "jsonb", "citext", "inet" -> "STRING";
            case "bytea" -> "BINARY";
            default -> throw new IllegalArgumentException("no Spark/Hive type for PostgreSQL type " + postgresType);
        };
    }

    /** {@code CREATE DATABASE} for one defog database. */
    public static String createDatabase(String database) {
        return "CREATE DATABASE IF NOT EXISTS " + quote(database);
    }

    /** An external text table over the folder {@code location} (a {@code file:} URI the server can read). */
    public static String createTable(String database, Table table, String location) {
        StringBuilder sb = new StringBuilder("CREATE EXTERNAL TABLE ").append(quote(database)).append('.').append(quote(table.name())).append(" (");
        for (int i = 0; i < table.columns().size(); i++) {
            Column c = table.columns().get(i);
            sb.append(i == 0 ? "\n  " : ",\n  ").append(quote(c.name())).append(' ').append(c.type());
        }
        return sb.append(")\nROW FORMAT DELIMITED FIELDS TERMINATED BY '\\001' ESCAPED BY '\\\\' NULL DEFINED AS '\\\\N'\n")
                .append("STORED AS TEXTFILE LOCATION '").append(location.replace("'", "\\'")).append('\'').toString();
    }

    /**
     * One row as a line of the text format: each value in its text form (null as {@code \N}), the escape, field
     * separator, carriage return and newline characters backslash-escaped, fields joined by {@link #FIELD}.
     */
    public static String textLine(List<String> values) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < values.size(); i++) {
            if (i > 0) sb.append(FIELD);
            String v = values.get(i);
            if (v == null) {
                sb.append(NULL);
                continue;
            }
            for (int j = 0; j < v.length(); j++) {
                char c = v.charAt(j);
                switch (c) {
                    case '\\' -> sb.append("\\\\");
                    case FIELD -> sb.append('\\').append(FIELD);
                    case '\n' -> sb.append("\\n");
                    case '\r' -> sb.append("\\r");
                    default -> sb.append(c);
                }
            }
        }
        return sb.append('\n').toString();
    }

    public static String quote(String identifier) {
        return "`" + identifier.replace("`", "``") + "`";
    }

    private static String unquote(String name) {
        return name.startsWith("\"") && name.endsWith("\"") ? name.substring(1, name.length() - 1).replace("\"\"", "\"") : name;
    }

    private static String firstWord(String s) {
        int end = 0;
        while (end < s.length() && !Character.isWhitespace(s.charAt(end)) && s.charAt(end) != '(') end++;
        return s.substring(0, end);
    }

    /** Splits at commas outside parentheses and quotes ({@code numeric(10, 2)}, {@code DEFAULT 'a,b'}). */
    private static List<String> topLevelSplit(String body) {
        List<String> out = new ArrayList<>();
        int depth = 0;
        int start = 0;
        char quote = 0;
        for (int i = 0; i < body.length(); i++) {
            char c = body.charAt(i);
            if (quote != 0) {
                if (c == quote) quote = 0;
            } else if (c == '\'' || c == '"') {
                quote = c;
            } else if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
            } else if (c == ',' && depth == 0) {
                out.add(body.substring(start, i));
                start = i + 1;
            }
        }
        out.add(body.substring(start));
        return out;
    }
}
