package dev.sqloop.cli;

import dev.sqloop.cli.bench.RunnerBenchmark;
import dev.sqloop.common.config.ConfigException;
import java.util.Arrays;
import java.util.List;

/** The {@code sqloop} command: dispatches subcommands. */
public final class Main {
    private static final String USAGE = """
            usage: ./sqloop <command> [options]

              demo                 run the embedded demo: broker, every stage, simulated LLM, DuckDB warehouse
              test                 run every test (unit and integration, on real servers)
              bench runner         StageRunner throughput vs the ideal in_flight / latency
                    [--records N] [--latency-ms 100] [--in-flight 256] [--no-share]
              bench validator [ROUNDS]     static-validation latency per parser family (p50/p99)
              bench executor [ITERATIONS]  executor overhead over raw JDBC on DuckDB
              bench retrieval [N] [Q]      embed + top-k search at 1k and N stored examples, schema linking
              submit FILE.jsonl    submit a batch to a gateway and follow it
                    --gateway URL [--api-key K] [--wait] [--out results.jsonl] [--resubmit]
              status ID [--batch]  a question's (or batch's) status from the gateway
              run SERVICE          run one service alone, configured by SQLOOP_* environment variables:
                    generator (generate+repair; SQLOOP_GENERATOR_WORKERS narrows) | repair | validator | executor | fewshot | gateway
              seed FILE [--datasource NAME]
                                   seed the example store (YAML cases, defog CSV or JSONL); idempotent
              examples list|add|delete   the gateway's few-shot examples
                    list [--datasource D] [--source seed|auto|manual] [--q TEXT] [--prefix P] [--tag T] [--limit N] [--cursor C]
                    add --datasource D --question Q --sql SQL [--notes N] [--tags a,b]
                    delete ID          (all take --gateway URL [--api-key K])
              help                 this text
            """;

    private Main() {}

    public static void main(String[] argv) {
        // Lucene announces its SIMD setup through java.util.logging at INFO on every start: not for users.
        java.util.logging.Logger.getLogger("org.apache.lucene").setLevel(java.util.logging.Level.WARNING);
        int code;
        try {
            code = run(Arrays.asList(argv));
        } catch (Args.UsageException | ConfigException e) {
            System.err.println("sqloop: " + e.getMessage());
            code = 2;
        } catch (Exception e) {
            System.err.println("sqloop: failed: " + e);
            e.printStackTrace(System.err);
            code = 1;
        }
        System.exit(code);
    }

    static int run(List<String> argv) throws Exception {
        if (argv.isEmpty()) {
            System.out.print(USAGE);
            return 2;
        }
        String command = argv.get(0);
        List<String> rest = argv.subList(1, argv.size());
        return switch (command) {
            case "demo" -> Demo.run(new Args(rest));
            case "bench" -> bench(rest);
            case "submit" -> SubmitCommand.run(new Args(rest));
            case "status" -> SubmitCommand.status(new Args(rest));
            case "run" -> runService(rest);
            case "seed" -> seed(new Args(rest));
            case "examples" -> ExamplesCommand.run(new Args(rest));
            case "help", "--help", "-h" -> {
                System.out.print(USAGE);
                yield 0;
            }
            default -> throw new Args.UsageException("unknown command '" + command + "'\n" + USAGE);
        };
    }

    /** Each service is also runnable alone, for real deployments: the same Main its container would run. */
    private static int runService(List<String> argv) throws Exception {
        String service = argv.isEmpty() ? "" : argv.get(0);
        String[] rest = argv.isEmpty() ? new String[0] : argv.subList(1, argv.size()).toArray(String[]::new);
        switch (service) {
            case "generator" -> dev.sqloop.generator.Main.main(rest);
            case "repair" -> dev.sqloop.generator.Main.main(new String[] {"repair"});
            case "validator" -> dev.sqloop.validator.Main.main(rest);
            case "executor" -> dev.sqloop.executor.Main.main(rest);
            case "fewshot" -> dev.sqloop.fewshot.Main.main(rest);
            case "gateway" -> dev.sqloop.gateway.Main.main(rest);
            default -> throw new Args.UsageException("run what? one of: generator, repair, validator, executor, fewshot, gateway");
        }
        return 0;
    }

    /** {@code ./sqloop seed FILE}: seeds the configured example store (SQLOOP_FEWSHOT_*), as the fewshot service reads it. */
    private static int seed(Args args) throws Exception {
        if (args.positional().isEmpty()) throw new Args.UsageException("seed needs a file: ./sqloop seed FILE [--datasource NAME]");
        String[] argv = {"seed", args.positional().get(0), args.string("datasource", "default")};
        dev.sqloop.fewshot.Main.main(argv);
        return 0;
    }

    private static int bench(List<String> argv) throws Exception {
        String what = argv.isEmpty() ? "" : argv.get(0);
        Args args = new Args(argv.isEmpty() ? List.of() : argv.subList(1, argv.size()));
        return switch (what) {
            case "runner" -> RunnerBenchmark.run(args);
            case "validator" -> {
                dev.sqloop.validator.ValidationBenchmark.main(args.positional().toArray(String[]::new));
                yield 0;
            }
            case "executor" -> {
                dev.sqloop.executor.ExecutorBenchmark.main(args.positional().toArray(String[]::new));
                yield 0;
            }
            case "retrieval" -> {
                dev.sqloop.fewshot.RetrievalBenchmark.main(args.positional().toArray(String[]::new));
                yield 0;
            }
            default -> throw new Args.UsageException("bench what? one of: runner, validator, executor, retrieval");
        };
    }
}
