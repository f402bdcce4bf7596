package dev.sqloop.lab;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.message.NlConstraints;
import dev.sqloop.parse.SqlCorpus;
import dev.sqloop.validator.StaticValidator;
import dev.sqloop.validator.ValidationTarget;
import dev.sqloop.parse.DialectParsers;
import dev.sqloop.validator.schema.InMemorySchemaCatalog;
import dev.sqloop.validator.schema.SchemaCatalog;
import dev.sqloop.validator.schema.TableSchema;
import dev.sqloop.parse.JSqlStatements;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import net.sf.jsqlparser.parser.CCJSqlParser;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;

/**
 * Prints warm static-validation latency (parse + read-only + schema + constraint checks) per parser family
 * and dialect over the shipped corpora (legitimate queries and evasions). Goal: p50 ≤ 1 ms. Then the CPU of
 * JSqlParser's parse on the calling thread ({@link JSqlStatements}) against the library's own timed parse, which runs
 * it on an executor thread and waits, in this process, alternating rounds.
 * Usage: {@code java -cp … dev.sqloop.validator.ValidationBenchmark [rounds]}.
 */
public final class ValidationBenchmark {

    private ValidationBenchmark() {}

    public static void main(String[] args) {
        int rounds = dev.sqloop.cli.Args.count(args, 0, 200, "bench validator [ROUNDS]: ROUNDS");
        SchemaCatalog catalog = shopCatalog();
        NlConstraints constraints = new NlConstraints(null, null, null, null, null);
        List<SqlCorpus.Case> legit = SqlCorpus.load(SqlCorpus.LEGITIMATE);
        List<SqlCorpus.Case> evasions = SqlCorpus.load(SqlCorpus.EVASIONS);
        System.out.printf("%-12s %-9s %-9s %7s %9s %9s%n", "family", "dialect", "corpus", "queries", "p50 µs", "p99 µs");
        for (Dialect d : Dialect.values()) {
            ValidationTarget target = new ValidationTarget(d, catalog);
            run(d, "legit", legit, target, constraints, rounds);
            run(d, "evasions", evasions, target, constraints, rounds);
        }
        List<String> jsql = legit.stream().filter(c -> c.dialect() == Dialect.DUCKDB || c.dialect() == Dialect.POSTGRES)
                .map(SqlCorpus.Case::sql).toList();
        parseThreads(jsql);
    }

    private interface ParseCall {
        void parse(String sql) throws Exception;
    }

    private static final int PARSE_CLIENTS = 4;
    private static final int PARSES_PER_ROUND = 10_000;

    /**
     * Process CPU per parse, {@link #PARSE_CLIENTS} virtual threads parsing at once as a stage's records do: JSqlParser
     * on the calling thread against {@code CCJSqlParserUtil.parseStatements} with an executor (its way to a time limit).
     */
    private static void parseThreads(List<String> sqls) {
        ExecutorService pool = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "bench-jsqlparser");
            t.setDaemon(true);
            return t;
        });
        Consumer<CCJSqlParser> plain = p -> p.withSquareBracketQuotation(false);
        ParseCall executor = sql -> CCJSqlParserUtil.parseStatements(sql, pool, p -> plain.accept(p.withTimeOut(2_000)));
        ParseCall here = sql -> JSqlStatements.parse(sql, plain, 2_000);
        System.out.printf("%nJSqlParser's parse, %d virtual-thread clients, process CPU per parse of the duckdb and postgres legit"
                + " queries (%d), alternating rounds of %,d parses:%n", PARSE_CLIENTS, sqls.size(), PARSES_PER_ROUND);
        for (int warm = 0; warm < 5; warm++) {
            cpuPerParse(executor, sqls);
            cpuPerParse(here, sqls);
        }
        List<double[]> rounds = new ArrayList<>();
        for (int r = 1; r <= 5; r++) {
            double a = cpuPerParse(executor, sqls);
            double b = cpuPerParse(here, sqls);
            rounds.add(new double[] {a, b});
            System.out.printf("  round %d: on an executor thread (CCJSqlParserUtil) %6.1f µs, on the calling thread %6.1f µs, ratio %.2f%n",
                    r, a, b, b / a);
        }
        double a = MachineSpeed.median(rounds.stream().mapToDouble(x -> x[0]).toArray());
        double b = MachineSpeed.median(rounds.stream().mapToDouble(x -> x[1]).toArray());
        System.out.printf("  median:  on an executor thread %6.1f µs, on the calling thread %6.1f µs, ratio %.2f%n", a, b, b / a);
        pool.shutdownNow();
    }

    private static double cpuPerParse(ParseCall call, List<String> sqls) {
        long cpu = CpuProfile.processCpuNanos();
        try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int c = 0; c < PARSE_CLIENTS; c++) {
                int first = c;
                clients.submit(() -> {
                    for (int i = first; i < PARSES_PER_ROUND; i += PARSE_CLIENTS) {
                        try {
                            call.parse(sqls.get(i % sqls.size()));
                        } catch (Exception refused) {
                            // a text the plain settings do not parse costs the same either way
                        }
                    }
                });
            }
        }
        return (CpuProfile.processCpuNanos() - cpu) / 1e3 / PARSES_PER_ROUND;
    }

    private static void run(Dialect d, String label, List<SqlCorpus.Case> cases, ValidationTarget target,
                            NlConstraints constraints, int rounds) {
        List<String> sqls = cases.stream().filter(c -> c.dialect() == d).map(SqlCorpus.Case::sql).toList();
        for (int i = 0; i < 50; i++) for (String sql : sqls) StaticValidator.validate(sql, target, constraints);
        long[] nanos = new long[rounds * sqls.size()];
        int k = 0;
        for (int r = 0; r < rounds; r++) {
            for (String sql : sqls) {
                long t0 = System.nanoTime();
                StaticValidator.validate(sql, target, constraints);
                nanos[k++] = System.nanoTime() - t0;
            }
        }
        Arrays.sort(nanos);
        System.out.printf("%-12s %-9s %-9s %7d %9.1f %9.1f%n", DialectParsers.forDialect(d).family(), d.wireName(), label,
                sqls.size(), nanos[nanos.length / 2] / 1e3, nanos[(int) (nanos.length * 0.99)] / 1e3);
    }

    private static SchemaCatalog shopCatalog() {
        TableSchema orders = new TableSchema(null, "main", "orders", columns("id", "customer_id", "status", "amount",
                "order_date", "tags"));
        TableSchema customers = new TableSchema(null, "main", "customers", columns("id", "name", "country"));
        return InMemorySchemaCatalog.builder().table(orders).table(customers).defaultSchema("main")
                .values(orders, "status", List.of("shipped", "pending", "cancelled"))
                .functions(List.of("count", "sum", "avg", "min", "max", "upper", "row_number", "date_trunc", "string_agg"))
                .build();
    }

    private static Map<String, String> columns(String... names) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String n : names) m.put(n, "varchar");
        return m;
    }
}
