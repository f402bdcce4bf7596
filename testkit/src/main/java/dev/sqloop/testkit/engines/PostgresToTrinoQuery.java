package dev.sqloop.testkit.engines;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.expression.BinaryExpression;
import net.sf.jsqlparser.expression.CastExpression;
import net.sf.jsqlparser.expression.DateTimeLiteralExpression;
import net.sf.jsqlparser.expression.DateUnitExpression;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.ExtractExpression;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.expression.IntervalExpression;
import net.sf.jsqlparser.expression.Parenthesis;
import net.sf.jsqlparser.expression.StringValue;
import net.sf.jsqlparser.expression.TimeKeyExpression;
import net.sf.jsqlparser.expression.operators.arithmetic.Subtraction;
import net.sf.jsqlparser.expression.operators.relational.Between;
import net.sf.jsqlparser.expression.operators.relational.EqualsTo;
import net.sf.jsqlparser.expression.operators.relational.ExpressionList;
import net.sf.jsqlparser.expression.operators.relational.GreaterThan;
import net.sf.jsqlparser.expression.operators.relational.GreaterThanEquals;
import net.sf.jsqlparser.expression.operators.relational.InExpression;
import net.sf.jsqlparser.expression.operators.relational.LikeExpression;
import net.sf.jsqlparser.expression.operators.relational.MinorThan;
import net.sf.jsqlparser.expression.operators.relational.MinorThanEquals;
import net.sf.jsqlparser.expression.operators.relational.NotEqualsTo;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.create.table.ColDataType;
import net.sf.jsqlparser.statement.select.GroupByElement;
import net.sf.jsqlparser.statement.select.OrderByElement;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.SelectItem;
import net.sf.jsqlparser.util.deparser.ExpressionDeParser;
import net.sf.jsqlparser.util.deparser.SelectDeParser;
import net.sf.jsqlparser.util.deparser.StatementDeParser;

/**
 * Translates a PostgreSQL query (the defog gold SQL) into Trino SQL on JSqlParser's parse tree: the tree is
 * printed back by a deparser that writes Trino's spelling of the PostgreSQL constructs Trino lacks or reads
 * differently. Only meaning-preserving rewrites are made; what has no faithful Trino form is left as written so
 * that Trino reports it. JSqlParser is used because it is the one parser in our dependency set that reads
 * PostgreSQL completely (../shared/facts/INFRA.md: 100 % of the PostgreSQL corpus) and can print a modified tree;
 * Trino's own parser cannot read PostgreSQL.
 *
 * <ul>
 *   <li>{@code x::t} and {@code CAST(x AS t)} with Trino's type names ({@code float} → {@code double}, {@code text}
 *       → {@code varchar}, an unbounded {@code numeric} → {@code double});</li>
 *   <li>{@code a ILIKE b} → {@code lower(a) LIKE lower(b)};</li>
 *   <li>{@code interval '7 days'} → {@code INTERVAL '7' DAY} (weeks as days);</li>
 *   <li>{@code to_char(t, 'YYYY-MM')} → {@code date_format(t, '%Y-%m')}; {@code to_timestamp(n)} →
 *       {@code from_unixtime(n)}; {@code now()} → {@code current_timestamp}; {@code date_part('f', x)} →
 *       {@code EXTRACT(f FROM x)}; {@code EXTRACT(EPOCH FROM t)} → {@code to_unixtime(t)}; {@code EXTRACT(DOW …)}
 *       (Sunday 0) → {@code day_of_week(…) % 7} (Trino's DOW is ISO, Sunday 7);</li>
 *   <li>a date-, timestamp- or time-shaped string compared with an expression ({@code ts BETWEEN '2023-01-01'
 *       AND …}) → a typed literal: PostgreSQL types the untyped literal from the other side, Trino
 *       does not coerce varchar to date;</li>
 *   <li>with the column types: {@code date - date} → {@code date_diff('day', …)} (an integer on PostgreSQL, an
 *       interval on Trino); {@code to_char(ts::time, …)} → {@code date_format(ts, …)} (Trino formats timestamps only);</li>
 *   <li>{@code GROUP BY alias} → the aliased expression: PostgreSQL accepts output names in GROUP BY, Trino
 *       only input columns and ordinals;</li>
 *   <li>{@code ORDER BY x DESC} → {@code … DESC NULLS FIRST}: PostgreSQL sorts nulls as the largest value,
 *       Trino puts them last in both directions.</li>
 * </ul>
 */
public final class PostgresToTrinoQuery {
    private static final Pattern DATE = Pattern.compile("\\d{4}-\\d{2}-\\d{2}");
    private static final Pattern TIMESTAMP = Pattern.compile("\\d{4}-\\d{2}-\\d{2}[ T]\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?");
    private static final Pattern TIME = Pattern.compile("\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?");
    private static final Pattern INTERVAL_PART = Pattern.compile("\\s*(-?\\d+)\\s*([a-zA-Z]+)\\s*");
    private static final Map<String, String> INTERVAL_UNITS = Map.ofEntries(
            Map.entry("year", "YEAR"), Map.entry("years", "YEAR"), Map.entry("month", "MONTH"), Map.entry("months", "MONTH"),
            Map.entry("mon", "MONTH"), Map.entry("mons", "MONTH"), Map.entry("day", "DAY"), Map.entry("days", "DAY"),
            Map.entry("hour", "HOUR"), Map.entry("hours", "HOUR"), Map.entry("minute", "MINUTE"), Map.entry("minutes", "MINUTE"),
            Map.entry("min", "MINUTE"), Map.entry("mins", "MINUTE"), Map.entry("second", "SECOND"), Map.entry("seconds", "SECOND"),
            Map.entry("sec", "SECOND"), Map.entry("secs", "SECOND"));
    /** PostgreSQL {@code to_char} template patterns and their MySQL-style {@code date_format} specifiers, longest first. */
    private static final List<String[]> FORMAT = List.of(
            new String[] {"YYYY", "%Y"}, new String[] {"HH24", "%H"}, new String[] {"HH12", "%h"}, new String[] {"Month", "%M"},
            new String[] {"Mon", "%b"}, new String[] {"Day", "%W"}, new String[] {"Dy", "%a"}, new String[] {"YY", "%y"},
            new String[] {"MM", "%m"}, new String[] {"DD", "%d"}, new String[] {"HH", "%h"}, new String[] {"MI", "%i"},
            new String[] {"SS", "%s"}, new String[] {"AM", "%p"}, new String[] {"PM", "%p"}, new String[] {"MS", "%f"});

    private PostgresToTrinoQuery() {}

    /** The Trino form of one PostgreSQL statement; a trailing {@code ;} is dropped (Trino's parser refuses it). */
    public static String translate(String postgresSql) {
        return translate(postgresSql, Map.of());
    }

    /**
     * As {@link #translate(String)}, knowing the Trino types of the database's columns by (lower-case) column name
     * ({@link PostgresToTrino#columnTypes}): with them, {@code date - date} (days as an integer on PostgreSQL, an
     * interval on Trino) becomes {@code date_diff('day', …)}, and {@code to_char} of a time is formatted.
     */
    public static String translate(String postgresSql, Map<String, String> columnTypes) {
        Statement statement;
        try {
            statement = CCJSqlParserUtil.parse(postgresSql);
        } catch (JSQLParserException e) {
            throw new IllegalArgumentException("not PostgreSQL JSqlParser can read: " + firstLine(e.getMessage()), e);
        }
        StringBuilder out = new StringBuilder();
        TrinoExpressions expressions = new TrinoExpressions(columnTypes);
        TrinoSelects selects = new TrinoSelects(expressions, out);
        expressions.setSelectVisitor(selects);
        expressions.setBuilder(out);
        statement.accept(new StatementDeParser(expressions, selects, out));
        return out.toString();
    }

    /** One PostgreSQL expression in Trino's spelling (used for the values of translated INSERTs). */
    static String expression(Expression e) {
        StringBuilder out = new StringBuilder();
        TrinoExpressions expressions = new TrinoExpressions(Map.of());
        TrinoSelects selects = new TrinoSelects(expressions, out);
        expressions.setSelectVisitor(selects);
        expressions.setBuilder(out);
        e.accept(expressions, null);
        return out.toString();
    }

    /** Trino's name for a PostgreSQL type, for CAST and for the memory catalog's columns. */
    static String type(ColDataType t, boolean column) {
        String name = t.getDataType().toLowerCase(Locale.ROOT).strip().replaceAll("\\s+", " ");
        List<String> args = t.getArgumentsStringList() == null ? List.of() : t.getArgumentsStringList();
        int paren = name.indexOf('(');
        if (paren >= 0) {
            // JSqlParser sometimes keeps the arguments in the type name ("varchar (20)")
            args = List.of(name.substring(paren + 1, name.lastIndexOf(')')).split("\\s*,\\s*"));
            name = name.substring(0, paren).strip();
        }
        return switch (name) {
            case "bigint", "int8", "bigserial", "serial8" -> "BIGINT";
            case "integer", "int", "int4", "serial", "serial4" -> "INTEGER";
            case "smallint", "int2", "smallserial", "serial2" -> "SMALLINT";
            case "text", "varchar", "character varying", "char", "character", "bpchar", "string", "name" -> "VARCHAR";
            // Memory tables store every numeric as double: Trino's decimal keeps the input scale through avg and
            // division (avg of decimal(10,2) is rounded to 2 places) where PostgreSQL's numeric widens.
            case "numeric", "decimal" -> column || args.isEmpty() ? "DOUBLE" : "DECIMAL(" + String.join(", ", args) + ")";
            case "real", "float4" -> "REAL";
            case "double precision", "double", "float8", "float" -> "DOUBLE";
            case "boolean", "bool" -> "BOOLEAN";
            case "date" -> "DATE";
            case "timestamp", "timestamp without time zone" -> column ? "TIMESTAMP(6)" : "TIMESTAMP";
            case "timestamptz", "timestamp with time zone" -> column ? "TIMESTAMP(6) WITH TIME ZONE" : "TIMESTAMP WITH TIME ZONE";
            case "time", "time without time zone" -> column ? "TIME(6)" : "TIME";
            default -> throw new IllegalArgumentException("no Trino type for PostgreSQL type " + t);
        };
    }

    /** {@code 'N unit [N unit …]'} as Trino interval literals, or null when the text is not that simple form. */
    static String interval(String text) {
        String s = text.strip();
        if (s.startsWith("'") && s.endsWith("'")) s = s.substring(1, s.length() - 1);
        Matcher m = INTERVAL_PART.matcher(s);
        List<String> parts = new ArrayList<>();
        int end = 0;
        while (m.find() && m.start() == end) {
            end = m.end();
            long n = Long.parseLong(m.group(1));
            String unit = m.group(2).toLowerCase(Locale.ROOT);
            if (unit.equals("week") || unit.equals("weeks")) {
                n *= 7;
                unit = "day";
            }
            String trino = INTERVAL_UNITS.get(unit);
            if (trino == null) return null;
            parts.add(n < 0 ? "-INTERVAL '" + -n + "' " + trino : "INTERVAL '" + n + "' " + trino);
        }
        if (end != s.length() || parts.isEmpty()) return null;
        return parts.size() == 1 ? parts.getFirst() : "(" + String.join(" + ", parts) + ")";
    }

    /** A PostgreSQL {@code to_char} template as a {@code date_format} format; text in double quotes is kept literally. */
    static String dateFormat(String pgTemplate) {
        StringBuilder out = new StringBuilder();
        int i = 0;
        while (i < pgTemplate.length()) {
            char c = pgTemplate.charAt(i);
            if (c == '"') {
                int close = pgTemplate.indexOf('"', i + 1);
                int stop = close < 0 ? pgTemplate.length() : close;
                out.append(pgTemplate.substring(i + 1, stop).replace("%", "%%"));
                i = stop + 1;
                continue;
            }
            String[] match = null;
            for (String[] f : FORMAT) {
                if (pgTemplate.regionMatches(true, i, f[0], 0, f[0].length())) {
                    match = f;
                    break;
                }
            }
            if (match != null) {
                out.append(match[1]);
                i += match[0].length();
            } else {
                out.append(c == '%' ? "%%" : String.valueOf(c));
                i++;
            }
        }
        return out.toString();
    }

    private static String firstLine(String s) {
        return s == null ? "" : s.lines().findFirst().orElse("");
    }

    /** Prints expressions in Trino's spelling; comparison operands are retyped before they are printed. */
    private static final class TrinoExpressions extends ExpressionDeParser {
        private final Map<String, String> columnTypes;

        TrinoExpressions(Map<String, String> columnTypes) {
            this.columnTypes = columnTypes;
        }

        /** The base type (date, time, timestamp, …) of an expression where it is evident, else null. */
        private String typeOf(Expression e) {
            String t = switch (e) {
                case Column c -> columnTypes.get(c.getColumnName().replace("\"", "").toLowerCase(Locale.ROOT));
                case TimeKeyExpression k -> k.getStringValue().toLowerCase(Locale.ROOT).replace("current_", "");
                case CastExpression c -> type(c.getColDataType(), false);
                case DateTimeLiteralExpression d -> d.getType().name();
                case Parenthesis p -> typeOf(p.getExpression());
                case Function f when f.getParameters() != null && f.getParameters().size() == 1
                        && f.getName().matches("(?i)min|max") -> typeOf(f.getParameters().getFirst());
                default -> null;
            };
            if (t == null) return null;
            t = t.toLowerCase(Locale.ROOT);
            int paren = t.indexOf('(');
            return paren < 0 ? t : t.substring(0, paren) + t.substring(t.indexOf(')') + 1);
        }

        @Override
        public <S> StringBuilder visit(Subtraction minus, S context) {
            if ("date".equals(typeOf(minus.getLeftExpression())) && "date".equals(typeOf(minus.getRightExpression()))) {
                builder.append("date_diff('day', ");
                minus.getRightExpression().accept(this, context);
                builder.append(", ");
                minus.getLeftExpression().accept(this, context);
                builder.append(')');
                return builder;
            }
            return super.visit(minus, context);
        }

        @Override
        public <S> StringBuilder visit(CastExpression cast, S context) {
            builder.append("CAST(");
            cast.getLeftExpression().accept(this, context);
            builder.append(" AS ").append(type(cast.getColDataType(), false)).append(')');
            return builder;
        }

        @Override
        public <S> StringBuilder visit(LikeExpression like, S context) {
            if (like.getLikeKeyWord() != LikeExpression.KeyWord.ILIKE) return super.visit(like, context);
            builder.append("lower(");
            like.getLeftExpression().accept(this, context);
            builder.append(like.isNot() ? ") NOT LIKE lower(" : ") LIKE lower(");
            like.getRightExpression().accept(this, context);
            builder.append(')');
            if (like.getEscape() != null) {
                builder.append(" ESCAPE ");
                like.getEscape().accept(this, context);
            }
            return builder;
        }

        @Override
        public <S> StringBuilder visit(IntervalExpression interval, S context) {
            if (interval.getIntervalType() == null && interval.getParameter() != null) {
                String trino = interval(interval.getParameter());
                if (trino != null) {
                    builder.append(trino);
                    return builder;
                }
            }
            return super.visit(interval, context);
        }

        @Override
        public <S> StringBuilder visit(ExtractExpression extract, S context) {
            String field = extract.getName().toLowerCase(Locale.ROOT);
            switch (field) {
                case "epoch" -> call("to_unixtime", extract.getExpression(), context);
                case "dow" -> {
                    builder.append('(');
                    call("day_of_week", extract.getExpression(), context);
                    builder.append(" % 7)");
                }
                case "isodow" -> call("day_of_week", extract.getExpression(), context);
                case "doy" -> call("day_of_year", extract.getExpression(), context);
                default -> {
                    builder.append("EXTRACT(").append(field.toUpperCase(Locale.ROOT)).append(" FROM ");
                    extract.getExpression().accept(this, context);
                    builder.append(')');
                }
            }
            return builder;
        }

        private <S> void call(String function, Expression argument, S context) {
            builder.append(function).append('(');
            argument.accept(this, context);
            builder.append(')');
        }

        @Override
        public <S> StringBuilder visit(Function f, S context) {
            String name = f.getName() == null ? "" : f.getName().toLowerCase(Locale.ROOT);
            ExpressionList<?> args = f.getParameters();
            int n = args == null ? 0 : args.size();
            if (name.equals("now") && n == 0) {
                builder.append("current_timestamp");
                return builder;
            }
            if (name.equals("to_timestamp") && n == 1) {
                call("from_unixtime", args.getFirst(), context);
                return builder;
            }
            if (name.equals("to_char") && n == 2 && args.get(1) instanceof StringValue fmt) {
                builder.append("date_format(");
                // date_format takes timestamps only: to_char(ts::time, …) formats the timestamp itself, whose
                // time fields are the same; a time column has no such source and is left for Trino to refuse
                Expression value = args.getFirst();
                if (value instanceof CastExpression c && "time".equals(typeOf(c)) && !dateFormat(fmt.getValue()).matches(".*%[YymdbMWa].*")) {
                    value = c.getLeftExpression();
                }
                value.accept(this, context);
                builder.append(", '").append(dateFormat(fmt.getValue()).replace("'", "''")).append("')");
                return builder;
            }
            if (name.equals("date_part") && n == 2 && args.getFirst() instanceof StringValue field) {
                ExtractExpression extract = new ExtractExpression();
                extract.setName(field.getValue());
                extract.setExpression(args.get(1));
                return visit(extract, context);
            }
            return super.visit(f, context);
        }

        @Override
        public <S> StringBuilder visit(EqualsTo e, S context) {
            return super.visit(retype(e), context);
        }

        @Override
        public <S> StringBuilder visit(NotEqualsTo e, S context) {
            return super.visit(retype(e), context);
        }

        @Override
        public <S> StringBuilder visit(GreaterThan e, S context) {
            return super.visit(retype(e), context);
        }

        @Override
        public <S> StringBuilder visit(GreaterThanEquals e, S context) {
            return super.visit(retype(e), context);
        }

        @Override
        public <S> StringBuilder visit(MinorThan e, S context) {
            return super.visit(retype(e), context);
        }

        @Override
        public <S> StringBuilder visit(MinorThanEquals e, S context) {
            return super.visit(retype(e), context);
        }

        @Override
        public <S> StringBuilder visit(Between between, S context) {
            Expression left = between.getLeftExpression();
            if (!(left instanceof StringValue)) {
                between.setBetweenExpressionStart(temporal(between.getBetweenExpressionStart()));
                between.setBetweenExpressionEnd(temporal(between.getBetweenExpressionEnd()));
            }
            return super.visit(between, context);
        }

        @Override
        public <S> StringBuilder visit(InExpression in, S context) {
            if (!(in.getLeftExpression() instanceof StringValue) && in.getRightExpression() instanceof ExpressionList<?> list) {
                @SuppressWarnings("unchecked")
                ExpressionList<Expression> values = (ExpressionList<Expression>) list;
                values.replaceAll(PostgresToTrinoQuery::temporal);
            }
            return super.visit(in, context);
        }

        private static <T extends BinaryExpression> T retype(T e) {
            boolean leftString = e.getLeftExpression() instanceof StringValue;
            boolean rightString = e.getRightExpression() instanceof StringValue;
            if (leftString && !rightString) e.setLeftExpression(temporal(e.getLeftExpression()));
            if (rightString && !leftString) e.setRightExpression(temporal(e.getRightExpression()));
            return e;
        }
    }

    /** A date- or timestamp-shaped string literal as a typed literal; anything else unchanged. */
    static Expression temporal(Expression e) {
        if (!(e instanceof StringValue s) || s.getPrefix() != null) return e;
        DateTimeLiteralExpression.DateTime type;
        if (DATE.matcher(s.getValue()).matches()) type = DateTimeLiteralExpression.DateTime.DATE;
        else if (TIMESTAMP.matcher(s.getValue()).matches()) type = DateTimeLiteralExpression.DateTime.TIMESTAMP;
        else if (TIME.matcher(s.getValue()).matches()) type = DateTimeLiteralExpression.DateTime.TIME;
        else return e;
        DateTimeLiteralExpression literal = new DateTimeLiteralExpression();
        literal.setType(type);
        literal.setValue("'" + s.getValue().replace('T', ' ') + "'");
        return literal;
    }

    /** Rewrites GROUP BY aliases and PostgreSQL's implicit NULLS FIRST for DESC on each SELECT before printing it. */
    private static final class TrinoSelects extends SelectDeParser {
        TrinoSelects(TrinoExpressions expressions, StringBuilder out) {
            super(expressions, out);
        }

        @Override
        public <S> StringBuilder visit(PlainSelect select, S context) {
            groupByAliases(select);
            if (select.getOrderByElements() != null) select.getOrderByElements().forEach(TrinoSelects::postgresNullOrder);
            return super.visit(select, context);
        }

        private static void groupByAliases(PlainSelect select) {
            GroupByElement groupBy = select.getGroupBy();
            if (groupBy == null || groupBy.getGroupByExpressionList() == null) return;
            ExpressionList<Expression> keys = groupBy.getGroupByExpressionList();
            for (int i = 0; i < keys.size(); i++) {
                // an unqualified name; JSqlParser reads MONTH, QUARTER, … as date units
                String name = switch (keys.get(i)) {
                    case Column c when c.getTable() == null || c.getTable().getName() == null -> c.getColumnName().replace("\"", "");
                    case DateUnitExpression u -> u.toString();
                    default -> null;
                };
                if (name == null) continue;
                for (SelectItem<?> item : select.getSelectItems()) {
                    if (item.getAlias() != null && item.getAlias().getName().replace("\"", "").equalsIgnoreCase(name)
                            && !(item.getExpression() instanceof Column same && same.getColumnName().equalsIgnoreCase(name))) {
                        keys.set(i, item.getExpression());
                        break;
                    }
                }
            }
        }

        private static void postgresNullOrder(OrderByElement o) {
            if (!o.isAsc() && o.getNullOrdering() == null) o.setNullOrdering(OrderByElement.NullOrdering.NULLS_FIRST);
        }
    }
}
