package dev.sqloop.embedded.bench;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.message.NlConstraints;
import dev.sqloop.parse.SqlCorpus;
import dev.sqloop.validator.StaticValidator;
import dev.sqloop.validator.ValidationTarget;
import dev.sqloop.parse.DialectParsers;
import dev.sqloop.validator.schema.InMemorySchemaCatalog;
import dev.sqloop.validator.schema.SchemaCatalog;
import dev.sqloop.validator.schema.TableSchema;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Prints warm static-validation latency (parse + read-only + schema + constraint checks) per parser family
 * and dialect over the shipped corpora (legitimate queries and evasions). Goal: p50 ≤ 1 ms.
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
