package dev.sqloop.parse;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.error.ErrorCategory;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Bounds the size of every value a query builds from constants, on every dialect, before any engine sees it. Engines
 * bound memory per operator, not per value: DuckDB checks for interruption between vectors only (a scalar
 * {@code range(150000000)} ran 320 s on a 3 s timeout) and allocates strings outside {@code memory_limit}
 * ({@code printf('%1000000000d', 1)} grew the executor to 5 GB), and one {@code repeat('x', 2000000000)} took the Spark
 * Thrift Server down.
 *
 * <p>Each expression is estimated as {@code constant + factor × data}: the characters (or elements) built from literals,
 * and how many times the warehouse's own values are copied. Counts, widths and bounds ({@code repeat}, {@code lpad},
 * {@code space}, {@code array_repeat}, {@code sequence}, …) must be numbers written in the query — literal or computed
 * from literals — up to {@value #MAX_ELEMENTS}; format strings ({@code printf}, {@code format}, {@code format_string})
 * must be literals with widths and precisions up to {@value #MAX_FORMAT_WIDTH}; replacements, separators, encodings
 * and lambdas multiply what they are applied to. A value over {@value #MAX_CONSTANT} characters or
 * {@value #MAX_FACTOR}× the data is refused as {@code timeout} (too expensive to run), naming the function.
 */
final class ValueSizePolicy {
    static final long MAX_ELEMENTS = 100_000;
    static final long MAX_CONSTANT = 1_000_000;
    static final long MAX_FACTOR = 10_000;
    static final long MAX_FORMAT_WIDTH = 1_000;
    /** What a collecting aggregate (string_agg, collect_list, …) may copy per row from constants. */
    static final long MAX_COLLECTED = 10_000;

    private enum Kind { COUNT, WIDTH, BOUNDS, FORMAT, REPLACE, REGEX_REPLACE, GROWS, SEPARATOR, COLLECT, APPLY, REDUCE, DIGITS }

    /** @param args 1-based argument positions the kind reads; @param factor for GROWS */
    private record Spec(Kind kind, List<Integer> args, int factor) {
        static Spec of(Kind kind, Integer... args) {
            return new Spec(kind, List.of(args), 1);
        }
    }

    /**
     * The union over dialects: a name means the same growth wherever it exists. {@code BOUNDS} applies only where one
     * value is built and the engine does not bound it itself (DuckDB's scalar {@code range}, Spark's {@code sequence};
     * PostgreSQL's {@code generate_series} streams rows, Trino caps {@code sequence} at 10,000 entries).
     */
    private static final Map<String, Spec> SPECS = Map.ofEntries(
            Map.entry("repeat", Spec.of(Kind.COUNT, 2)), Map.entry("array_repeat", Spec.of(Kind.COUNT, 2)),
            Map.entry("list_repeat", Spec.of(Kind.COUNT, 2)), Map.entry("space", Spec.of(Kind.COUNT, 1)),
            Map.entry("lpad", Spec.of(Kind.WIDTH, 2)), Map.entry("rpad", Spec.of(Kind.WIDTH, 2)),
            Map.entry("bar", Spec.of(Kind.WIDTH, 4)), Map.entry("list_resize", Spec.of(Kind.WIDTH, 2)),
            Map.entry("array_resize", Spec.of(Kind.WIDTH, 2)), Map.entry("array_fill", Spec.of(Kind.WIDTH, 2)),
            Map.entry("range", Spec.of(Kind.BOUNDS)), Map.entry("generate_series", Spec.of(Kind.BOUNDS)),
            Map.entry("sequence", Spec.of(Kind.BOUNDS)),
            Map.entry("printf", Spec.of(Kind.FORMAT, 1)), Map.entry("format", Spec.of(Kind.FORMAT, 1)),
            Map.entry("format_string", Spec.of(Kind.FORMAT, 1)), Map.entry("format_number", Spec.of(Kind.DIGITS, 2)),
            Map.entry("replace", Spec.of(Kind.REPLACE, 2, 3)), Map.entry("str_replace", Spec.of(Kind.REPLACE, 2, 3)),
            Map.entry("regexp_replace", Spec.of(Kind.REGEX_REPLACE, 2, 3)),
            Map.entry("hex", new Spec(Kind.GROWS, List.of(), 2)), Map.entry("to_hex", new Spec(Kind.GROWS, List.of(), 2)),
            Map.entry("base64", new Spec(Kind.GROWS, List.of(), 2)), Map.entry("to_base64", new Spec(Kind.GROWS, List.of(), 2)),
            Map.entry("encode", new Spec(Kind.GROWS, List.of(), 2)), Map.entry("bin", new Spec(Kind.GROWS, List.of(), 64)),
            Map.entry("quote_literal", new Spec(Kind.GROWS, List.of(), 2)), Map.entry("quote_ident", new Spec(Kind.GROWS, List.of(), 2)),
            Map.entry("quote_nullable", new Spec(Kind.GROWS, List.of(), 2)), Map.entry("url_encode", new Spec(Kind.GROWS, List.of(), 3)),
            Map.entry("to_json", new Spec(Kind.GROWS, List.of(), 6)), Map.entry("to_jsonb", new Spec(Kind.GROWS, List.of(), 6)),
            Map.entry("json_quote", new Spec(Kind.GROWS, List.of(), 6)), Map.entry("escape", new Spec(Kind.GROWS, List.of(), 6)),
            Map.entry("concat_ws", Spec.of(Kind.SEPARATOR, 1)), Map.entry("array_join", Spec.of(Kind.SEPARATOR, 2, 3)),
            Map.entry("array_to_string", Spec.of(Kind.SEPARATOR, 2, 3)), Map.entry("list_aggr", Spec.of(Kind.SEPARATOR, 3)),
            Map.entry("string_agg", Spec.of(Kind.COLLECT, 2)), Map.entry("listagg", Spec.of(Kind.COLLECT, 2)),
            Map.entry("group_concat", Spec.of(Kind.COLLECT, 2)), Map.entry("array_agg", Spec.of(Kind.COLLECT)),
            Map.entry("collect_list", Spec.of(Kind.COLLECT)), Map.entry("collect_set", Spec.of(Kind.COLLECT)),
            Map.entry("list", Spec.of(Kind.COLLECT)), Map.entry("json_agg", Spec.of(Kind.COLLECT)),
            Map.entry("jsonb_agg", Spec.of(Kind.COLLECT)), Map.entry("json_object_agg", Spec.of(Kind.COLLECT)),
            Map.entry("jsonb_object_agg", Spec.of(Kind.COLLECT)), Map.entry("xmlagg", Spec.of(Kind.COLLECT)),
            Map.entry("map_agg", Spec.of(Kind.COLLECT)), Map.entry("histogram", Spec.of(Kind.COLLECT)),
            Map.entry("transform", Spec.of(Kind.APPLY)), Map.entry("list_transform", Spec.of(Kind.APPLY)),
            Map.entry("array_transform", Spec.of(Kind.APPLY)), Map.entry("list_apply", Spec.of(Kind.APPLY)),
            Map.entry("array_apply", Spec.of(Kind.APPLY)), Map.entry("apply", Spec.of(Kind.APPLY)),
            Map.entry("zip_with", Spec.of(Kind.APPLY)), Map.entry("transform_values", Spec.of(Kind.APPLY)),
            Map.entry("transform_keys", Spec.of(Kind.APPLY)), Map.entry("map_zip_with", Spec.of(Kind.APPLY)),
            Map.entry("aggregate", Spec.of(Kind.REDUCE)), Map.entry("reduce", Spec.of(Kind.REDUCE)),
            Map.entry("list_reduce", Spec.of(Kind.REDUCE)), Map.entry("array_reduce", Spec.of(Kind.REDUCE)));

    /** The growth rules this policy reads itself: the catalog's size notes cannot express them. */
    private static final Set<Kind> OWN_KINDS = Set.of(Kind.SEPARATOR, Kind.COLLECT, Kind.APPLY, Kind.REDUCE, Kind.DIGITS,
            Kind.REGEX_REPLACE);

    private ValueSizePolicy() {}

    /**
     * How {@code function} grows on {@code dialect}: this policy's own rule where the catalog cannot express it
     * (separators, aggregates, lambdas), else the dialect's allow-list note for a {@code sized} function (Trino's
     * {@code bar} takes its width second, DuckDB's fourth), else this policy's union table. Null: bounded by its inputs.
     */
    static Spec spec(Dialect dialect, String function) {
        Spec own = SPECS.get(function);
        if (own != null && OWN_KINDS.contains(own.kind())) return own;
        for (FunctionCatalog.Entry e : FunctionCatalog.of(dialect).entries(function)) {
            if (e.safety() != FunctionCatalog.Safety.SIZED || e.sizes().isEmpty()) continue;
            return switch (e.sizes().getFirst()) {
                case FunctionCatalog.SizeSpec.Count n -> Spec.of(Kind.COUNT, n.arg());
                case FunctionCatalog.SizeSpec.Width w -> Spec.of(Kind.WIDTH, w.arg());
                case FunctionCatalog.SizeSpec.Bounds b -> Spec.of(Kind.BOUNDS);
                case FunctionCatalog.SizeSpec.Format f -> Spec.of(Kind.FORMAT, f.arg());
                case FunctionCatalog.SizeSpec.Replace r -> Spec.of(Kind.REPLACE, r.from(), r.to());
                case FunctionCatalog.SizeSpec.Grows g -> new Spec(Kind.GROWS, List.of(), g.factor());
            };
        }
        return own;
    }

    /** A rejection when {@code e} may build a value beyond the bounds, else null. */
    static SqlRejection check(Dialect dialect, ValueExpr e) {
        Estimate estimate = new Estimate(dialect);
        try {
            estimate.size(e);
            return null;
        } catch (Refusal r) {
            return r.rejection;
        }
    }

    /** The characters {@code e} builds from literals, or infinity when it is refused outright. */
    static double constantSize(Dialect dialect, ValueExpr e) {
        try {
            return new Estimate(dialect).size(e).constant();
        } catch (Refusal r) {
            return Double.POSITIVE_INFINITY;
        }
    }

    /** {@code constant} characters (or elements) built from literals plus {@code factor} times the data's own size. */
    record Size(double constant, double factor) {
        static final Size ZERO = new Size(0, 0);
        static final Size DATA = new Size(0, 1);

        Size plus(Size o) {
            return new Size(constant + o.constant, factor + o.factor);
        }

        Size times(double n) {
            return new Size(constant * n, factor * n);
        }
    }

    private static final class Refusal extends RuntimeException {
        final SqlRejection rejection;

        Refusal(SqlRejection rejection) {
            super(null, null, false, false);
            this.rejection = rejection;
        }
    }

    private static final class Estimate {
        private final Dialect dialect;

        Estimate(Dialect dialect) {
            this.dialect = dialect;
        }

        Size size(ValueExpr e) {
            return switch (e) {
                case ValueExpr.Text t -> new Size(t.value().length(), 0);
                case ValueExpr.Number n -> new Size(24, 0);
                case ValueExpr.Data d -> Size.DATA;
                case ValueExpr.Cast c -> size(c.inner());
                case ValueExpr.Lambda l -> size(l.body());
                case ValueExpr.Arith a -> size(a.left()).plus(size(a.right()));
                case ValueExpr.Concat c -> bounded("||", sum(c.parts()));
                case ValueExpr.Other o -> sum(o.parts());
                case ValueExpr.Call c -> bounded(c.name(), call(c));
            };
        }

        private Size sum(List<ValueExpr> parts) {
            Size s = Size.ZERO;
            for (ValueExpr p : parts) s = s.plus(size(p));
            return s;
        }

        private Size call(ValueExpr.Call c) {
            Spec spec = spec(dialect, c.name());
            if (spec == null) return sum(c.args());
            return switch (spec.kind()) {
                case COUNT -> {
                    long n = count(c, spec.args().getFirst());
                    Size subject = c.name().equals("space") ? new Size(1, 0) : others(c, spec.args());
                    yield multiply(c.name(), subject, new Size(n, 0));
                }
                case WIDTH -> {
                    long n = c.name().equals("array_fill") ? dimensions(c, spec.args().getFirst()) : count(c, spec.args().getFirst());
                    Size fill = others(c, spec.args());
                    // a padded string is exactly as wide as asked; a resized list holds n of its fill
                    yield Set.of("lpad", "rpad", "bar").contains(c.name()) ? new Size(n, 0)
                            : multiply(c.name(), fill.plus(new Size(1, 0)), new Size(n, 0));
                }
                case BOUNDS -> bounds(c);
                case FORMAT -> format(c, spec.args().getFirst());
                case DIGITS -> {
                    ValueExpr digits = c.arg(spec.args().getFirst());
                    if (digits != null && !(digits instanceof ValueExpr.Text)) {
                        long n = count(c, spec.args().getFirst());
                        if (n > MAX_FORMAT_WIDTH) throw refuse(c.name(), "it asks for " + n + " digits (at most " + MAX_FORMAT_WIDTH + ")");
                        yield sum(c.args()).plus(new Size(n, 0));
                    }
                    yield sum(c.args());
                }
                case REPLACE, REGEX_REPLACE -> replace(c, spec);
                case GROWS -> sum(c.args()).times(spec.factor());
                case SEPARATOR -> {
                    Size separators = Size.ZERO;
                    for (int i : spec.args()) if (c.arg(i) != null) separators = separators.plus(size(c.arg(i)));
                    yield multiply(c.name(), others(c, spec.args()), separators.plus(new Size(1, 0)));
                }
                case COLLECT -> {
                    Size row = sum(c.args());
                    if (row.constant() > MAX_COLLECTED) {
                        throw refuse(c.name(), "it would collect a value of ~" + (long) row.constant() + " characters built"
                                + " from constants for every row (at most " + MAX_COLLECTED + ")");
                    }
                    yield Size.DATA;
                }
                case APPLY -> apply(c);
                case REDUCE -> reduce(c);
            };
        }

        /** Everything but the arguments at {@code positions}. */
        private Size others(ValueExpr.Call c, List<Integer> positions) {
            Size s = Size.ZERO;
            for (int i = 1; i <= c.args().size(); i++) if (!positions.contains(i)) s = s.plus(size(c.arg(i)));
            return s;
        }

        private Size multiply(String function, Size a, Size b) {
            if (a.factor() > 0 && b.factor() > 0) {
                throw refuse(function, "its size would be the data's size times itself");
            }
            return new Size(a.constant() * b.constant(), a.constant() * b.factor() + a.factor() * b.constant());
        }

        /** A value over the bounds is refused where it is built. */
        private Size bounded(String function, Size s) {
            if (s.constant() > MAX_CONSTANT) {
                throw refuse(function, "it would build a value of ~" + String.format("%,.0f", s.constant())
                        + " characters or elements (at most " + String.format("%,d", MAX_CONSTANT) + ")");
            }
            if (s.factor() > MAX_FACTOR) {
                throw refuse(function, "it would build a value " + String.format("%,.0f", s.factor())
                        + " times the size of the data it reads (at most " + String.format("%,d", MAX_FACTOR) + ")");
            }
            return s;
        }

        /** A count, width or size argument: a number written in the query, up to MAX_ELEMENTS. */
        private long count(ValueExpr.Call c, int position) {
            ValueExpr arg = c.arg(position);
            if (arg == null) return 0;
            size(arg);
            Double n = fold(arg);
            if (n == null) throw refuse(c.name(), "its size is computed from the data; write it as a number up to " + MAX_ELEMENTS);
            if (n > MAX_ELEMENTS) throw refuse(c.name(), "it would build one value of " + String.format("%,.0f", n) + " elements");
            return Math.max(0, (long) Math.ceil(n));
        }

        /** PostgreSQL's array_fill(value, ARRAY[d1, d2, …]): the product of the dimensions. */
        private long dimensions(ValueExpr.Call c, int position) {
            ValueExpr arg = c.arg(position);
            List<ValueExpr> dims = arg instanceof ValueExpr.Cast cast && cast.inner() instanceof ValueExpr.Other o ? o.parts()
                    : arg instanceof ValueExpr.Other o ? o.parts() : null;
            if (dims == null) throw refuse(c.name(), "its dimensions are not written as an ARRAY[…] of numbers");
            double product = 1;
            for (ValueExpr d : dims) {
                Double n = fold(d);
                if (n == null) throw refuse(c.name(), "its dimensions are computed from the data");
                product *= Math.max(0, n);
            }
            if (product > MAX_ELEMENTS) throw refuse(c.name(), "it would build one value of " + String.format("%,.0f", product) + " elements");
            return (long) product;
        }

        /** Range-like (start, stop[, step]) builders of one value, where the engine builds it whole and unbounded. */
        private Size bounds(ValueExpr.Call c) {
            boolean buildsOneValue = switch (dialect) {
                case DUCKDB -> c.name().equals("range") || c.name().equals("generate_series");
                case SPARKSQL, HIVE -> c.name().equals("sequence");
                default -> false;
            };
            if (!buildsOneValue) return sum(c.args());
            List<ValueExpr> a = c.args();
            if (a.isEmpty()) return Size.ZERO;
            Double[] v = new Double[a.size()];
            for (int i = 0; i < a.size(); i++) {
                size(a.get(i));
                v[i] = fold(a.get(i));
                if (v[i] == null) {
                    throw refuse(c.name(), "its bounds are computed from the data; write them as numbers or dates");
                }
            }
            double start = a.size() == 1 ? 0 : v[0];
            double stop = a.size() == 1 ? v[0] : v[1];
            double step = a.size() >= 3 ? v[2] : 1;
            if (step == 0) return Size.ZERO;
            // DuckDB's range stops before its end; generate_series and sequence include it
            double elements = Math.floor(Math.abs((stop - start) / step)) + (c.name().equals("range") ? 0 : 1);
            if (elements > MAX_ELEMENTS) {
                throw refuse(c.name(), "it would build one value of " + String.format("%,.0f", elements) + " elements");
            }
            return new Size(elements * 8, 0);
        }

        private static final Pattern PRINTF = Pattern.compile("%(?:\\d+\\$)?[-#+ 0,(<]*(\\*|\\d+)?(?:\\.(\\*|\\d+))?");
        private static final Pattern FMT = Pattern.compile("\\{[^{}]*}|\\{[^{}]*\\{");

        /** printf-style ({@code %10s}, {@code %.3f}) or fmt-style ({@code {:>10}}) format strings: literal, widths bounded. */
        private Size format(ValueExpr.Call c, int position) {
            ValueExpr f = c.arg(position);
            Size rest = others(c, List.of(position));
            if (f == null) return rest;
            if (!(f instanceof ValueExpr.Text text)) {
                throw refuse(c.name(), "its format is computed; write the format as a string literal");
            }
            String fmt = text.value();
            long widths = 0;
            Matcher m = PRINTF.matcher(fmt);
            while (m.find()) {
                for (int g = 1; g <= 2; g++) {
                    String w = m.group(g);
                    if (w == null) continue;
                    if (w.equals("*")) throw refuse(c.name(), "its format takes a width from an argument (%*)");
                    widths += widthOf(c, w);
                }
            }
            Matcher b = FMT.matcher(fmt);
            while (b.find()) {
                String field = b.group();
                if (field.endsWith("{")) throw refuse(c.name(), "its format takes a width from an argument ({:{}})");
                Matcher digits = Pattern.compile("\\d+").matcher(field.substring(field.indexOf(':') + 1));
                if (field.contains(":")) while (digits.find()) widths += widthOf(c, digits.group());
            }
            return new Size(fmt.length() + widths, 0).plus(rest);
        }

        private long widthOf(ValueExpr.Call c, String digits) {
            long w = digits.length() > 7 ? Long.MAX_VALUE : Long.parseLong(digits);
            if (w > MAX_FORMAT_WIDTH) {
                throw refuse(c.name(), "its format asks for a width or precision of " + digits + " (at most " + MAX_FORMAT_WIDTH + ")");
            }
            return w;
        }

        private Size replace(ValueExpr.Call c, Spec spec) {
            ValueExpr from = c.arg(spec.args().get(0));
            ValueExpr to = c.arg(spec.args().get(1));
            Size subject = others(c, spec.args());
            if (to == null) return subject.plus(from == null ? Size.ZERO : size(from));
            Size fromSize = from == null ? Size.ZERO : size(from);
            Size toSize = size(to);
            double growth;
            if (spec.kind() == Kind.REPLACE && from instanceof ValueExpr.Text t && !t.value().isEmpty()) {
                // each occurrence of a non-empty literal is replaced: at most len(subject) / len(from) of them
                if (toSize.factor() > 0) return multiply(c.name(), subject, toSize.plus(new Size(1, 0))).plus(fromSize);
                growth = Math.max(1, Math.ceil(toSize.constant() / t.value().length()));
                return subject.times(growth).plus(fromSize);
            }
            // a pattern may match the empty string between any two characters: every position gains the replacement
            return multiply(c.name(), subject.plus(new Size(1, 0)), toSize.plus(new Size(1, 0))).plus(fromSize);
        }

        /** transform(list, x -> body): the body once per element, its data the element itself. */
        private Size apply(ValueExpr.Call c) {
            Size lists = Size.ZERO;
            Size body = new Size(1, 0);
            for (ValueExpr a : c.args()) {
                if (a instanceof ValueExpr.Lambda l) {
                    Size b = size(l.body());
                    body = new Size(Math.max(body.constant(), b.constant() + b.factor()), 0);
                } else {
                    lists = lists.plus(size(a));
                }
            }
            return lists.times(Math.max(1, body.constant()));
        }

        /** aggregate(list, start, (acc, x) -> merge): a merge that uses its accumulator twice doubles it per element. */
        private Size reduce(ValueExpr.Call c) {
            Size total = Size.ZERO;
            for (ValueExpr a : c.args()) {
                if (a instanceof ValueExpr.Lambda l) {
                    Size b = size(l.body());
                    if (b.factor() > 1) {
                        throw refuse(c.name(), "its merge function uses the accumulator more than once, so the value can"
                                + " double with every element");
                    }
                    total = total.plus(new Size(b.constant(), 0));
                } else {
                    total = total.plus(size(a));
                }
            }
            return total.times(2);
        }
    }

    /** The number an expression of literals evaluates to (dates and intervals in days), or null when it reads data. */
    static Double fold(ValueExpr e) {
        return switch (e) {
            case ValueExpr.Number n -> n.value();
            case ValueExpr.Cast c -> fold(c.inner());
            case ValueExpr.Text t -> {
                try {
                    yield Double.parseDouble(t.value().strip());
                } catch (NumberFormatException x) {
                    yield null;
                }
            }
            case ValueExpr.Arith a -> {
                Double l = fold(a.left());
                Double r = fold(a.right());
                if (l == null || r == null) yield null;
                yield switch (a.op()) {
                    case '+' -> l + r;
                    case '-' -> l - r;
                    case '*' -> l * r;
                    case '/' -> r == 0 ? null : l / r;
                    case '%' -> r == 0 ? null : l % r;
                    default -> null;
                };
            }
            case ValueExpr.Call c when (c.name().equals("power") || c.name().equals("pow")) && c.args().size() == 2 -> {
                Double b = fold(c.args().get(0));
                Double x = fold(c.args().get(1));
                yield b == null || x == null ? null : Math.pow(b, x);
            }
            case ValueExpr.Call c when Set.of("abs", "round", "floor", "ceil", "ceiling", "trunc", "int", "bigint").contains(c.name())
                    && !c.args().isEmpty() -> {
                Double x = fold(c.args().getFirst());
                yield x == null ? null : c.name().equals("abs") ? Math.abs(x) : x;
            }
            case ValueExpr.Other o when o.parts().size() == 1 -> fold(o.parts().getFirst());
            default -> null;
        };
    }

    private static Refusal refuse(String function, String why) {
        return new Refusal(new SqlRejection(ErrorCategory.TIMEOUT, (function.equals("||") ? "concatenation" : function + "()")
                + " is refused: " + why + "; engines do not bound the memory of one value per query (and DuckDB cannot"
                + " interrupt building it): build less, or aggregate in the warehouse", function));
    }
}
