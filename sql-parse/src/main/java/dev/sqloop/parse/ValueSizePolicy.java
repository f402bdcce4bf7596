package dev.sqloop.parse;

import dev.sqloop.common.error.ErrorCategory;
import java.util.List;
import java.util.Map;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.expression.SignedExpression;
import net.sf.jsqlparser.expression.operators.relational.ExpressionList;

/**
 * DuckDB checks for interruption between vectors, not inside one function call: a scalar {@code range(150000000)}
 * builds a single list value for minutes and no timeout or {@code cancel()} stops it (measured: 320 s on a 3 s
 * timeout). Scalar functions that build one value whose size is an argument ({@code range}, {@code generate_series},
 * {@code repeat}, {@code lpad}, {@code list_resize}, …) are therefore accepted only with literal sizes up to
 * {@value #MAX_ELEMENTS}; larger or computed sizes are refused as {@code timeout} (the query is too expensive to
 * run), before any engine sees them. The table functions of the same names ({@code FROM range(…)}) stream in
 * vectors and stay interruptible: they are not restricted.
 */
final class ValueSizePolicy {
    static final long MAX_ELEMENTS = 100_000;
    /** Function name → index of the size argument, or -1 for range-like (start, stop, step) arguments. */
    private static final Map<String, Integer> SIZED = Map.ofEntries(
            Map.entry("range", -1), Map.entry("generate_series", -1), Map.entry("repeat", 1), Map.entry("lpad", 1),
            Map.entry("rpad", 1), Map.entry("list_resize", 1), Map.entry("array_resize", 1), Map.entry("list_repeat", 1),
            Map.entry("array_repeat", 1), Map.entry("bar", 3));

    private ValueSizePolicy() {}

    /** A rejection when {@code function(args)} may build an unbounded value, else null. */
    static SqlRejection check(String function, ExpressionList<?> args) {
        Integer at = SIZED.get(function);
        if (at == null) return null;
        List<? extends Expression> a = args == null ? List.of() : args;
        long size;
        if (at == -1) {
            Long[] v = new Long[a.size()];
            for (int i = 0; i < a.size(); i++) v[i] = literal(a.get(i));
            if (a.isEmpty() || java.util.Arrays.stream(v).anyMatch(java.util.Objects::isNull)) {
                return refuse(function, "its bounds are not integer literals");
            }
            long start = a.size() == 1 ? 0 : v[0];
            long stop = a.size() == 1 ? v[0] : v[1];
            long step = a.size() >= 3 ? v[2] : 1;
            if (step == 0) return null;
            size = Math.abs((stop - start) / step);
        } else {
            if (a.size() <= at) return null;
            Long n = literal(a.get(at));
            if (n == null) return refuse(function, "its size is not an integer literal");
            size = n;
        }
        return size > MAX_ELEMENTS ? refuse(function, "it would build one value of " + size + " elements") : null;
    }

    private static Long literal(Expression e) {
        if (e instanceof LongValue l) return l.getValue();
        if (e instanceof SignedExpression s && s.getExpression() instanceof LongValue l) {
            return s.getSign() == '-' ? -l.getValue() : l.getValue();
        }
        return null;
    }

    private static SqlRejection refuse(String function, String why) {
        return new SqlRejection(ErrorCategory.TIMEOUT, "scalar " + function + "() is refused: " + why
                + " (at most " + MAX_ELEMENTS + "), and DuckDB cannot interrupt building a single value;"
                + " use FROM " + function + "(…) as a table, which streams", function);
    }
}
