package dev.sqloop.parse;

import io.trino.sql.tree.ArithmeticBinaryExpression;
import io.trino.sql.tree.ArithmeticUnaryExpression;
import io.trino.sql.tree.Array;
import io.trino.sql.tree.Cast;
import io.trino.sql.tree.CoalesceExpression;
import io.trino.sql.tree.DecimalLiteral;
import io.trino.sql.tree.DoubleLiteral;
import io.trino.sql.tree.Expression;
import io.trino.sql.tree.Format;
import io.trino.sql.tree.FunctionCall;
import io.trino.sql.tree.GenericLiteral;
import io.trino.sql.tree.IntervalLiteral;
import io.trino.sql.tree.LambdaExpression;
import io.trino.sql.tree.LongLiteral;
import io.trino.sql.tree.NullLiteral;
import io.trino.sql.tree.SearchedCaseExpression;
import io.trino.sql.tree.SimpleCaseExpression;
import io.trino.sql.tree.StringLiteral;
import io.trino.sql.tree.WhenClause;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Trino's expression tree as {@link ValueExpr}: what the value-size policy reads. */
final class TrinoValues {
    /** Every node read so far: an expression inside one already judged needs no judging of its own (the walk is linear). */
    private final java.util.Set<Expression> read = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());

    /** Whether {@code e} was part of an expression this reader already read. */
    boolean read(Expression e) {
        return read.contains(e);
    }

    ValueExpr of(Expression e) {
        if (e != null) read.add(e);
        return switch (e) {
            case null -> new ValueExpr.Text("");
            case StringLiteral s -> new ValueExpr.Text(s.getValue());
            case LongLiteral l -> new ValueExpr.Number(l.getParsedValue(), false);
            case DoubleLiteral d -> new ValueExpr.Number(d.getValue(), false);
            case DecimalLiteral d -> number(d.getValue());
            case NullLiteral n -> new ValueExpr.Text("");
            case GenericLiteral g -> generic(g);
            case IntervalLiteral i -> interval(i);
            case ArithmeticUnaryExpression u -> u.getSign() == ArithmeticUnaryExpression.Sign.MINUS
                    ? new ValueExpr.Arith('-', new ValueExpr.Number(0, false), of(u.getValue())) : of(u.getValue());
            case ArithmeticBinaryExpression b -> new ValueExpr.Arith(switch (b.getOperator()) {
                case ADD -> '+';
                case SUBTRACT -> '-';
                case MULTIPLY -> '*';
                case DIVIDE -> '/';
                case MODULUS -> '%';
            }, of(b.getLeft()), of(b.getRight()));
            case FunctionCall f -> new ValueExpr.Call(f.getName().getSuffix().toLowerCase(Locale.ROOT), list(f.getArguments()));
            case Format f -> new ValueExpr.Call("format", list(f.getArguments()));
            case Cast c -> new ValueExpr.Cast(of(c.getExpression()));
            case LambdaExpression l -> new ValueExpr.Lambda(of(l.getBody()));
            case Array a -> new ValueExpr.Other(list(a.getValues()));
            case CoalesceExpression c -> new ValueExpr.Other(list(c.getOperands()));
            case SearchedCaseExpression c -> cases(c.getWhenClauses(), c.getDefaultValue().orElse(null));
            case SimpleCaseExpression c -> cases(c.getWhenClauses(), c.getDefaultValue().orElse(null));
            default -> ValueExpr.DATA; // a column, a subquery, a parameter: the warehouse's value
        };
    }

    private ValueExpr cases(List<WhenClause> whens, Expression otherwise) {
        List<ValueExpr> parts = new ArrayList<>();
        for (WhenClause w : whens) parts.add(of(w.getResult()));
        if (otherwise != null) parts.add(of(otherwise));
        return new ValueExpr.Other(parts);
    }

    private List<ValueExpr> list(List<Expression> l) {
        List<ValueExpr> out = new ArrayList<>(l.size());
        for (Expression x : l) out.add(of(x));
        return out;
    }

    private static ValueExpr number(String text) {
        try {
            return new ValueExpr.Number(Double.parseDouble(text), false);
        } catch (NumberFormatException e) {
            return ValueExpr.DATA;
        }
    }

    private static ValueExpr generic(GenericLiteral g) {
        String type = g.getType().toLowerCase(Locale.ROOT);
        if (type.equals("date")) {
            try {
                return new ValueExpr.Number(LocalDate.parse(g.getValue().strip()).toEpochDay(), true);
            } catch (RuntimeException e) {
                return ValueExpr.DATA;
            }
        }
        return type.matches("bigint|integer|int|smallint|tinyint|double|real|decimal.*") ? number(g.getValue()) : new ValueExpr.Text(g.getValue());
    }

    /** In days; a month counts 28 (more elements per range: the safe side). */
    private static ValueExpr interval(IntervalLiteral i) {
        double days = switch (i.getStartField()) {
            case YEAR -> 365;
            case MONTH -> 28;
            case DAY -> 1;
            case HOUR -> 1.0 / 24;
            case MINUTE -> 1.0 / 1440;
            case SECOND -> 1.0 / 86400;
        };
        try {
            double n = Double.parseDouble(i.getValue().strip());
            return new ValueExpr.Number((i.getSign() == IntervalLiteral.Sign.NEGATIVE ? -n : n) * days, true);
        } catch (NumberFormatException e) {
            return ValueExpr.DATA;
        }
    }
}
