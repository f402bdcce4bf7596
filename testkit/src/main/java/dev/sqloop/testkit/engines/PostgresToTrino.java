package dev.sqloop.testkit.engines;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.expression.BooleanValue;
import net.sf.jsqlparser.expression.DoubleValue;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.expression.NullValue;
import net.sf.jsqlparser.expression.StringValue;
import net.sf.jsqlparser.expression.operators.relational.ExpressionList;
import net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.create.table.ColumnDefinition;
import net.sf.jsqlparser.statement.create.table.CreateTable;
import net.sf.jsqlparser.statement.insert.Insert;
import net.sf.jsqlparser.statement.select.Values;

/**
 * Translates a PostgreSQL DDL + INSERT script (a defog database) into statements for one schema of Trino's
 * memory catalog, on JSqlParser's parse tree. Types follow {@link PostgresToTrinoQuery#type}: serials become
 * plain integers (the data carries its ids), text and varchar(n) become varchar, numeric becomes double,
 * timestamps keep PostgreSQL's microseconds. The memory connector has no defaults, keys or constraints, so
 * {@code NOT NULL} is kept and the rest dropped; a column's default is instead written into every INSERT that
 * leaves the column out, as PostgreSQL would have filled it. Every value gets its column's type (Trino does not
 * coerce {@code '2023-04-01'} to a date on INSERT, see {@link #cast}) and rows go in multi-row INSERTs of at most
 * {@value #ROWS_PER_INSERT} rows. Statements other than CREATE TABLE and INSERT are skipped and reported.
 */
public final class PostgresToTrino {
    public static final int ROWS_PER_INSERT = 500;

    /** The statements to run as the loader, and the source statements left out. */
    public record Translation(List<String> statements, List<String> skipped) {}

    record TrinoColumn(String name, String type, Expression defaultValue) {}

    private PostgresToTrino() {}

    /** Statements that create {@code catalog.schema} and fill it; tables are created before they are filled. */
    public static Translation translate(String postgresScript, String catalog, String schema) {
        String prefix = quote(catalog) + "." + quote(schema) + ".";
        List<String> statements = new ArrayList<>();
        List<String> skipped = new ArrayList<>();
        statements.add("CREATE SCHEMA " + quote(catalog) + "." + quote(schema));
        Map<String, List<TrinoColumn>> tables = new LinkedHashMap<>();
        for (String source : SqlScript.split(postgresScript)) {
            Statement parsed;
            try {
                parsed = CCJSqlParserUtil.parse(source);
            } catch (JSQLParserException e) {
                skipped.add(source);
                continue;
            }
            switch (parsed) {
                case CreateTable create -> {
                    String table = name(create.getTable().getName());
                    List<TrinoColumn> columns = columns(create);
                    tables.put(table, columns);
                    statements.add(createTable(prefix + quote(table), columns));
                }
                case Insert insert -> {
                    String table = name(insert.getTable().getName());
                    List<TrinoColumn> columns = tables.get(table);
                    if (columns == null) throw new IllegalArgumentException("INSERT into " + table + " before its CREATE TABLE");
                    statements.addAll(inserts(prefix + quote(table), columns, insert));
                }
                default -> skipped.add(source);
            }
        }
        return new Translation(List.copyOf(statements), List.copyOf(skipped));
    }

    /**
     * The Trino types of the script's columns by lower-case column name, for {@link PostgresToTrinoQuery#translate(String,
     * Map)}; a name whose tables disagree on its type is left out.
     */
    public static Map<String, String> columnTypes(String postgresScript) {
        Map<String, String> types = new HashMap<>();
        Set<String> conflicting = new HashSet<>();
        for (CreateTable create : SqlScript.createTables(postgresScript)) {
            for (TrinoColumn c : columns(create)) {
                String type = c.type().replace(" NOT NULL", "");
                String before = types.putIfAbsent(c.name(), type);
                if (before != null && !before.equals(type)) conflicting.add(c.name());
            }
        }
        conflicting.forEach(types::remove);
        return Map.copyOf(types);
    }

    private static List<TrinoColumn> columns(CreateTable create) {
        List<TrinoColumn> out = new ArrayList<>();
        for (ColumnDefinition d : create.getColumnDefinitions()) {
            String type = PostgresToTrinoQuery.type(d.getColDataType(), true);
            List<String> specs = d.getColumnSpecs() == null ? List.of() : d.getColumnSpecs();
            boolean notNull = false;
            Expression defaultValue = null;
            for (int i = 0; i < specs.size(); i++) {
                String spec = specs.get(i).toUpperCase(Locale.ROOT);
                if (spec.equals("NOT") && i + 1 < specs.size() && specs.get(i + 1).equalsIgnoreCase("NULL")) notNull = true;
                if (spec.equals("DEFAULT") && i + 1 < specs.size()) defaultValue = parseExpression(specs.get(i + 1));
            }
            out.add(new TrinoColumn(name(d.getColumnName()), type + (notNull ? " NOT NULL" : ""), defaultValue));
        }
        return out;
    }

    private static String createTable(String table, List<TrinoColumn> columns) {
        StringBuilder sb = new StringBuilder("CREATE TABLE ").append(table).append(" (");
        for (int i = 0; i < columns.size(); i++) {
            if (i > 0) sb.append(", ");
            sb.append(quote(columns.get(i).name())).append(' ').append(columns.get(i).type());
        }
        return sb.append(')').toString();
    }

    private static List<String> inserts(String table, List<TrinoColumn> columns, Insert insert) {
        List<TrinoColumn> targets = new ArrayList<>();
        if (insert.getColumns() == null || insert.getColumns().isEmpty()) {
            targets.addAll(columns);
        } else {
            for (Column c : insert.getColumns()) {
                String n = name(c.getColumnName());
                targets.add(columns.stream().filter(t -> t.name().equals(n)).findFirst()
                        .orElseThrow(() -> new IllegalArgumentException("no column " + n + " in " + table)));
            }
        }
        // columns the INSERT leaves out get their default, as PostgreSQL fills them
        List<TrinoColumn> defaulted = columns.stream().filter(c -> !targets.contains(c) && c.defaultValue() != null).toList();
        Values values = insert.getValues();
        if (values == null) throw new IllegalArgumentException("only INSERT … VALUES is supported: " + insert);
        List<String> rows = new ArrayList<>();
        for (Expression row : rows(values.getExpressions())) {
            List<Expression> cells = row instanceof ExpressionList<?> list ? new ArrayList<>(list) : List.of(row);
            if (cells.size() != targets.size()) {
                throw new IllegalArgumentException(table + ": a row has " + cells.size() + " values for " + targets.size() + " columns");
            }
            StringBuilder sb = new StringBuilder("(");
            for (int i = 0; i < cells.size(); i++) sb.append(i > 0 ? ", " : "").append(cast(cells.get(i), targets.get(i)));
            for (TrinoColumn d : defaulted) sb.append(", ").append(cast(d.defaultValue(), d));
            rows.add(sb.append(')').toString());
        }
        StringBuilder head = new StringBuilder("INSERT INTO ").append(table).append(" (");
        List<TrinoColumn> all = new ArrayList<>(targets);
        all.addAll(defaulted);
        for (int i = 0; i < all.size(); i++) head.append(i > 0 ? ", " : "").append(quote(all.get(i).name()));
        head.append(") VALUES\n");
        List<String> out = new ArrayList<>();
        for (int from = 0; from < rows.size(); from += ROWS_PER_INSERT) {
            out.add(head + String.join(",\n", rows.subList(from, Math.min(rows.size(), from + ROWS_PER_INSERT))));
        }
        return out;
    }

    /** The rows of {@code VALUES (…), (…)}; a single row arrives as the list of its values. */
    private static List<Expression> rows(ExpressionList<?> values) {
        boolean multiRow = !values.isEmpty() && values.stream().allMatch(e -> e instanceof ParenthesedExpressionList<?>);
        if (multiRow) return new ArrayList<>(values);
        return List.of(values);
    }

    /**
     * A value as its column's type. Literals that already have it stay plain and date/time strings become typed
     * literals; everything else is cast. Trino plans a VALUES list of plain literals far faster than one of casts.
     */
    static String cast(Expression value, TrinoColumn column) {
        String type = column.type().replace(" NOT NULL", "");
        String base = type.replaceAll("\\(.*", "");
        switch (value) {
            case NullValue n -> {
                return "NULL";
            }
            case StringValue s when s.getPrefix() == null && base.equals("VARCHAR") -> {
                return s.toString();
            }
            case StringValue s when s.getPrefix() == null && (base.equals("DATE") || type.equals("TIMESTAMP(6)") || type.equals("TIME(6)")) -> {
                return base + " '" + s.getValue() + "'";
            }
            case LongValue l when base.equals("BIGINT") || base.equals("INTEGER") || base.equals("DOUBLE") -> {
                return l.toString();
            }
            case DoubleValue d when base.equals("DOUBLE") -> {
                return d.toString();
            }
            case BooleanValue b when base.equals("BOOLEAN") -> {
                return b.toString();
            }
            default -> {
                return "CAST(" + PostgresToTrinoQuery.expression(value) + " AS " + type + ")";
            }
        }
    }

    private static Expression parseExpression(String text) {
        try {
            return CCJSqlParserUtil.parseExpression(text);
        } catch (JSQLParserException e) {
            throw new IllegalArgumentException("cannot read the default " + text, e);
        }
    }

    /** PostgreSQL folds unquoted names to lower case; a quoted one is kept as written. */
    static String name(String identifier) {
        String s = identifier.strip();
        if (s.length() > 1 && s.startsWith("\"") && s.endsWith("\"")) return s.substring(1, s.length() - 1).replace("\"\"", "\"");
        return s.toLowerCase(Locale.ROOT);
    }

    static String quote(String name) {
        return "\"" + name.replace("\"", "\"\"") + "\"";
    }
}
