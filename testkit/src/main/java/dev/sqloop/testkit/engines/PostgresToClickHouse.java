package dev.sqloop.testkit.engines;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import net.sf.jsqlparser.statement.create.table.ColDataType;
import net.sf.jsqlparser.statement.create.table.ColumnDefinition;
import net.sf.jsqlparser.statement.create.table.CreateTable;

/**
 * Translates a defog database's PostgreSQL DDL into ClickHouse tables, one ClickHouse database per defog database, on
 * JSqlParser's parse tree. ClickHouse tables need an engine: {@code MergeTree ORDER BY tuple()} (no sorting key: the
 * scripts' keys are not a query's order). A column is {@code Nullable} unless the script says {@code NOT NULL}, as
 * PostgreSQL allows NULL by default. Types: serials become plain integers (the data carries its ids), text and
 * varchar(n) {@code String}, numeric {@code Float64} (as on Trino: ClickHouse's Decimal keeps the input scale through
 * division, where PostgreSQL's numeric widens), date {@code Date32} (Date stops at 1970), timestamp
 * {@code DateTime64(6)}, time {@code String} ('HH:MM:SS', as the data is written). Names are those PostgreSQL stores:
 * lower case unless quoted. The rows are not translated here: the script's values hold expressions
 * ({@code CURRENT_DATE - INTERVAL '5 days'}) that DuckDB evaluates ({@link DefogDatasets#clickHouseLoad}).
 */
public final class PostgresToClickHouse {
    /** A table of the script: its name and columns (name → ClickHouse type), in order. */
    public record Table(String name, Map<String, String> columns) {}

    private PostgresToClickHouse() {}

    /** The script's tables with their ClickHouse column types, in script order. */
    public static List<Table> tables(String postgresScript) {
        List<Table> out = new ArrayList<>();
        for (CreateTable create : SqlScript.createTables(postgresScript)) {
            Map<String, String> columns = new LinkedHashMap<>();
            for (ColumnDefinition d : create.getColumnDefinitions()) {
                List<String> specs = d.getColumnSpecs() == null ? List.of() : d.getColumnSpecs();
                // a serial is NOT NULL in PostgreSQL, as a primary key is
                boolean notNull = d.getColDataType().getDataType().toLowerCase(Locale.ROOT).contains("serial");
                for (int i = 0; i + 1 < specs.size(); i++) {
                    if (specs.get(i).equalsIgnoreCase("NOT") && specs.get(i + 1).equalsIgnoreCase("NULL")) notNull = true;
                    if (specs.get(i).equalsIgnoreCase("PRIMARY") && specs.get(i + 1).equalsIgnoreCase("KEY")) notNull = true;
                }
                String type = type(d.getColDataType());
                columns.put(PostgresToTrino.name(d.getColumnName()), notNull ? type : "Nullable(" + type + ")");
            }
            out.add(new Table(PostgresToTrino.name(create.getTable().getName()), columns));
        }
        return out;
    }

    /** {@code CREATE DATABASE} and a {@code CREATE OR REPLACE TABLE} per table of the script. */
    public static List<String> createStatements(String postgresScript, String database) {
        List<String> out = new ArrayList<>();
        out.add("CREATE DATABASE IF NOT EXISTS " + quote(database));
        for (Table t : tables(postgresScript)) {
            StringBuilder sb = new StringBuilder("CREATE OR REPLACE TABLE ").append(quote(database)).append('.').append(quote(t.name())).append(" (");
            int i = 0;
            for (Map.Entry<String, String> c : t.columns().entrySet()) {
                sb.append(i++ > 0 ? ", " : "").append(quote(c.getKey())).append(' ').append(c.getValue());
            }
            out.add(sb.append(") ENGINE = MergeTree ORDER BY tuple()").toString());
        }
        return out;
    }

    /**
     * A defog gold query (PostgreSQL) in ClickHouse's dialect. ClickHouse matches names case-sensitively where
     * PostgreSQL folds unquoted ones to lower case (the tables hold the folded names): every unquoted word is written in
     * lower case, which keywords and PostgreSQL's functions (case-insensitive in ClickHouse) do not mind; string
     * literals and quoted names are kept.
     */
    public static String query(String postgresSql) {
        StringBuilder out = new StringBuilder(postgresSql.length());
        int i = 0;
        while (i < postgresSql.length()) {
            char ch = postgresSql.charAt(i);
            if (ch == '\'' || ch == '"') {
                int end = i + 1;
                while (end < postgresSql.length()) {
                    if (postgresSql.charAt(end) == ch) {
                        if (end + 1 < postgresSql.length() && postgresSql.charAt(end + 1) == ch) {
                            end += 2; // a doubled quote inside
                            continue;
                        }
                        break;
                    }
                    end++;
                }
                end = Math.min(end + 1, postgresSql.length());
                out.append(postgresSql, i, end);
                i = end;
            } else {
                out.append(Character.toLowerCase(ch));
                i++;
            }
        }
        // PostgreSQL's to_timestamp(epoch seconds) is ClickHouse's toDateTime (case-sensitive: written after folding)
        return out.toString().replaceAll("\\bto_timestamp\\s*\\(", "toDateTime(");
    }

    static String type(ColDataType t) {
        String name = t.getDataType().toLowerCase(Locale.ROOT).strip().replaceAll("\\s+", " ");
        int paren = name.indexOf('(');
        if (paren >= 0) name = name.substring(0, paren).strip();
        return switch (name) {
            case "bigint", "int8", "bigserial", "serial8" -> "Int64";
            case "integer", "int", "int4", "serial", "serial4" -> "Int32";
            case "smallint", "int2", "smallserial", "serial2" -> "Int16";
            case "text", "varchar", "character varying", "char", "character", "bpchar", "name" -> "String";
            case "numeric", "decimal", "double precision", "double", "float8", "float" -> "Float64";
            case "real", "float4" -> "Float32";
            case "boolean", "bool" -> "Bool";
            case "date" -> "Date32";
            case "timestamp", "timestamp without time zone" -> "DateTime64(6)";
            case "timestamptz", "timestamp with time zone" -> "DateTime64(6, 'UTC')";
            case "time", "time without time zone" -> "String";
            default -> throw new IllegalArgumentException("no ClickHouse type for PostgreSQL type " + t);
        };
    }

    /** Backticks: ClickHouse reads them (and double quotes) as identifiers; a backslash escapes inside. */
    static String quote(String name) {
        return "`" + name.replace("\\", "\\\\").replace("`", "\\`") + "`";
    }
}
