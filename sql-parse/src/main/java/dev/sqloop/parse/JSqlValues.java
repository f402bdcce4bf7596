package dev.sqloop.parse;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import net.sf.jsqlparser.expression.AnalyticExpression;
import net.sf.jsqlparser.expression.ArrayConstructor;
import net.sf.jsqlparser.expression.CaseExpression;
import net.sf.jsqlparser.expression.CastExpression;
import net.sf.jsqlparser.expression.DateTimeLiteralExpression;
import net.sf.jsqlparser.expression.DateValue;
import net.sf.jsqlparser.expression.DoubleValue;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.expression.IntervalExpression;
import net.sf.jsqlparser.expression.LambdaExpression;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.expression.NullValue;
import net.sf.jsqlparser.expression.SignedExpression;
import net.sf.jsqlparser.expression.StringValue;
import net.sf.jsqlparser.expression.WhenClause;
import net.sf.jsqlparser.expression.operators.arithmetic.Addition;
import net.sf.jsqlparser.expression.operators.arithmetic.Concat;
import net.sf.jsqlparser.expression.operators.arithmetic.Division;
import net.sf.jsqlparser.expression.operators.arithmetic.Modulo;
import net.sf.jsqlparser.expression.operators.arithmetic.Multiplication;
import net.sf.jsqlparser.expression.operators.arithmetic.Subtraction;
import net.sf.jsqlparser.expression.operators.relational.ExpressionList;
import net.sf.jsqlparser.expression.operators.relational.LikeExpression;

/** JSqlParser's expression tree as {@link ValueExpr}: what the value-size and regex policies read. */
final class JSqlValues {
    private final boolean backslashEscapes;
    /** Every node read so far: an expression inside one already judged needs no judging of its own (the walk is linear). */
    private final java.util.Set<Expression> read = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());

    /** @param backslashEscapes Hive/Spark: a literal's {@code \\} and {@code \'} are one character to the engine */
    JSqlValues(boolean backslashEscapes) {
        this.backslashEscapes = backslashEscapes;
    }

    /** Whether {@code e} was part of an expression this reader already read. */
    boolean read(Expression e) {
        return read.contains(e);
    }

    ValueExpr of(Expression e) {
        if (e != null) read.add(e);
        return switch (e) {
            case null -> new ValueExpr.Text("");
            case StringValue s -> new ValueExpr.Text(backslashEscapes ? unescape(s.getValue()) : s.getValue().replace("''", "'"));
            case LongValue l -> new ValueExpr.Number(l.getBigIntegerValue().doubleValue(), false);
            case DoubleValue d -> new ValueExpr.Number(d.getValue(), false);
            case NullValue n -> new ValueExpr.Text("");
            case SignedExpression s -> s.getSign() == '-'
                    ? new ValueExpr.Arith('-', new ValueExpr.Number(0, false), of(s.getExpression())) : of(s.getExpression());
            case DateValue d -> new ValueExpr.Number(d.getValue().toLocalDate().toEpochDay(), true);
            case DateTimeLiteralExpression d -> date(d.getValue());
            case IntervalExpression i -> interval(i);
            case Function f -> call(f);
            case AnalyticExpression a -> new ValueExpr.Call(lower(a.getName()), a.getExpression() == null ? List.of() : List.of(of(a.getExpression())));
            case LikeExpression like -> like(like);
            case Concat c -> new ValueExpr.Concat(List.of(of(c.getLeftExpression()), of(c.getRightExpression())));
            case Addition a -> new ValueExpr.Arith('+', of(a.getLeftExpression()), of(a.getRightExpression()));
            case Subtraction a -> new ValueExpr.Arith('-', of(a.getLeftExpression()), of(a.getRightExpression()));
            case Multiplication a -> new ValueExpr.Arith('*', of(a.getLeftExpression()), of(a.getRightExpression()));
            case Division a -> new ValueExpr.Arith('/', of(a.getLeftExpression()), of(a.getRightExpression()));
            case Modulo a -> new ValueExpr.Arith('%', of(a.getLeftExpression()), of(a.getRightExpression()));
            case CastExpression c -> new ValueExpr.Cast(c.getLeftExpression() == null ? ValueExpr.DATA : of(c.getLeftExpression()));
            case LambdaExpression l -> new ValueExpr.Lambda(of(l.getExpression()));
            case ArrayConstructor a -> new ValueExpr.Other(list(a.getExpressions()));
            case CaseExpression c -> {
                List<ValueExpr> parts = new ArrayList<>();
                for (WhenClause w : c.getWhenClauses()) parts.add(of(w.getThenExpression()));
                if (c.getElseExpression() != null) parts.add(of(c.getElseExpression()));
                yield new ValueExpr.Other(parts);
            }
            case ExpressionList<?> l -> l.size() == 1 ? of(l.getFirst()) : new ValueExpr.Other(list(l));
            default -> ValueExpr.DATA; // a column, a subquery, a parameter: the warehouse's value
        };
    }

    private ValueExpr call(Function f) {
        List<String> name = f.getMultipartName();
        String n = name == null || name.isEmpty() ? "" : lower(name.getLast());
        List<ValueExpr> args = new ArrayList<>(list(f.getParameters()));
        if (f.getKeywordArguments() != null) {
            // DuckDB's `lambda x: body` arrives as a keyword argument
            for (Function.KeywordArgument ka : f.getKeywordArguments()) args.add(new ValueExpr.Lambda(of(ka.getExpression())));
        }
        return new ValueExpr.Call(n, args);
    }

    /** {@code a LIKE p}, {@code a RLIKE p}: a call of the operator's name on the subject and the pattern. */
    private ValueExpr like(LikeExpression like) {
        String op = switch (like.getLikeKeyWord()) {
            case ILIKE -> "ilike";
            case RLIKE, REGEXP, REGEXP_LIKE, MATCH_REGEXP -> "rlike";
            case SIMILAR_TO -> "similar_to";
            default -> "like";
        };
        return new ValueExpr.Call(op, List.of(of(like.getLeftExpression()), of(like.getRightExpression())));
    }

    private List<ValueExpr> list(ExpressionList<?> l) {
        if (l == null) return List.of();
        List<ValueExpr> out = new ArrayList<>(l.size());
        for (Expression x : l) out.add(of(x));
        return out;
    }

    private static ValueExpr date(String quoted) {
        String v = quoted.replace("'", "").strip();
        try {
            return new ValueExpr.Number(LocalDate.parse(v.length() >= 10 ? v.substring(0, 10) : v).toEpochDay(), true);
        } catch (RuntimeException e) {
            return ValueExpr.DATA;
        }
    }

    /** An interval literal in days (a month counts 28: fewer days per step, more elements — the safe side). */
    private ValueExpr interval(IntervalExpression i) {
        String text = (i.getParameter() != null ? i.getParameter() : i.getExpression() == null ? "" : i.getExpression().toString())
                .replace("'", "").strip().toLowerCase(Locale.ROOT);
        String unit = i.getIntervalType() == null ? "" : i.getIntervalType().toLowerCase(Locale.ROOT);
        String[] parts = (text + " " + unit).strip().split("\\s+");
        try {
            double n = Double.parseDouble(parts[0]);
            String u = parts.length > 1 ? parts[1] : "day";
            double days = u.startsWith("year") ? 365 : u.startsWith("month") ? 28 : u.startsWith("week") ? 7 : u.startsWith("day") ? 1
                    : u.startsWith("hour") ? 1.0 / 24 : u.startsWith("minute") ? 1.0 / 1440 : u.startsWith("second") ? 1.0 / 86400 : Double.NaN;
            return Double.isNaN(days) ? ValueExpr.DATA : new ValueExpr.Number(n * days, true);
        } catch (RuntimeException e) {
            return ValueExpr.DATA;
        }
    }

    /** Hive/Spark: {@code \\} is a backslash, {@code \'} a quote; other escapes keep their backslash for the regex. */
    static String unescape(String s) {
        if (s.indexOf('\\') < 0) return s;
        StringBuilder b = new StringBuilder(s.length());
        for (int j = 0; j < s.length(); j++) {
            char c = s.charAt(j);
            if (c == '\\' && j + 1 < s.length()) {
                char e = s.charAt(j + 1);
                if (e == '\\' || e == '\'' || e == '"') b.append(e);
                else b.append('\\').append(e);
                j++;
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    private static String lower(String s) {
        return QueryScope.lower(JSqlDialectParser.unquote(s));
    }
}
