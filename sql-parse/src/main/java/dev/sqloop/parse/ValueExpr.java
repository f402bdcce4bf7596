package dev.sqloop.parse;

import java.util.List;

/**
 * An expression as the value-size and regex policies read it, whichever parser produced it: literals, the warehouse's
 * data (a column, a subquery), calls, arithmetic and concatenation, and everything else as the values it is made of.
 * Each parser translates its own tree into this form ({@code JSqlValues}, {@code TrinoValues}), so one policy judges
 * every dialect.
 */
sealed interface ValueExpr {

    /** A string literal, unescaped as the engine reads it. */
    record Text(String value) implements ValueExpr {}

    /** A numeric literal, or a date or interval literal already turned into days ({@link #days}). */
    record Number(double value, boolean days) implements ValueExpr {}

    /** A value the warehouse supplies: a column, a subquery, a lambda's parameter. Its size is the data's. */
    record Data() implements ValueExpr {}

    /** A function call: lower-case unqualified name, arguments in order. */
    record Call(String name, List<ValueExpr> args) implements ValueExpr {
        public Call {
            args = List.copyOf(args);
        }

        ValueExpr arg(int oneBased) {
            return oneBased <= args.size() ? args.get(oneBased - 1) : null;
        }
    }

    /** {@code x -> body}: applied once per element of the list it is passed with. */
    record Lambda(ValueExpr body) implements ValueExpr {}

    /** {@code + - * / %} on two operands. */
    record Arith(char op, ValueExpr left, ValueExpr right) implements ValueExpr {}

    /** {@code a || b || …}. */
    record Concat(List<ValueExpr> parts) implements ValueExpr {
        public Concat {
            parts = List.copyOf(parts);
        }
    }

    /** {@code CAST(x AS …)}, {@code x::…}: the value of {@code x}. */
    record Cast(ValueExpr inner) implements ValueExpr {}

    /** Anything else (CASE, arrays, rows, predicates): at most as large as its parts together. */
    record Other(List<ValueExpr> parts) implements ValueExpr {
        public Other {
            parts = List.copyOf(parts);
        }
    }

    ValueExpr DATA = new Data();
}
