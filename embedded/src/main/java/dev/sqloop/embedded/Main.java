package dev.sqloop.embedded;

import dev.sqloop.cli.Args;
import dev.sqloop.embedded.bench.ExecutorBenchmark;
import dev.sqloop.embedded.bench.IsolationBenchmark;
import dev.sqloop.embedded.bench.MachineSpeed;
import dev.sqloop.embedded.bench.ParserBoundsBenchmark;
import dev.sqloop.embedded.bench.PipelineBenchmark;
import dev.sqloop.embedded.bench.RetrievalBenchmark;
import dev.sqloop.embedded.bench.RunnerBenchmark;
import dev.sqloop.embedded.bench.ValidationBenchmark;
import java.util.Arrays;
import java.util.List;

/**
 * The entry point for what runs on the embedded classpath (testkit's broker, simulated LLM and demo warehouse):
 * {@code demo}, {@code serve}, {@code eval} and {@code bench}. Any other command goes to {@link dev.sqloop.cli.Main}, so this classpath can run
 * everything; the launcher sends only {@code demo} and {@code bench} here.
 */
public final class Main {
    private Main() {}

    public static void main(String[] argv) {
        // the demo prints its own table: sqloop's INFO lines and the embedded broker's warnings would bury it
        dev.sqloop.cli.Main.defaultLogLevel("WARN", "ERROR");
        List<String> args = Arrays.asList(argv);
        dev.sqloop.cli.Main.exit(() -> run(args));
    }

    static int run(List<String> argv) throws Exception {
        String command = argv.isEmpty() ? "help" : argv.get(0);
        List<String> rest = argv.isEmpty() ? List.of() : argv.subList(1, argv.size());
        return switch (command) {
            case "demo" -> Demo.run(Args.forCommand(rest, Demo.USAGE, "serve", "work-dir"));
            case "serve" -> Serve.run(Args.forCommand(rest, Serve.usage(), "data-dir"));
            case "broker" -> Broker.run(Args.forCommand(rest, Broker.USAGE, "data-dir"));
            case "chaos" -> Chaos.run(Args.forCommand(rest, Chaos.USAGE, "questions", "kill-every", "kinds", "llm-median-ms", "out"));
            case "eval" -> dev.sqloop.embedded.eval.Eval.run(new Args(rest));
            case "bench" -> bench(rest);
            default -> dev.sqloop.cli.Main.run(argv);
        };
    }

    static final String BENCH_USAGE = """
            usage: ./sqloop bench pipeline|runner|validator|executor|isolation|retrieval|probe [options]

              pipeline [--questions N] [--regime llm|cpu|both] [--llm-median-ms 800] [--concurrency 256]
                       [--lane on|off|both] [--agent N] [--unique] [--processes [--jvm-opts "OPTS"]] [--out DIR]
                                           the whole pipeline against its LLM-bound and CPU-bound limits,
                                           CPU per stage, heap timeline, speed-up over a sequential agent;
                                           --processes: each service in its own JVM, CPU and heap per process

              runner [--records N] [--latency-ms 100] [--in-flight 256] [--no-share]
                                           StageRunner throughput vs the ideal in_flight / latency
              validator [ROUNDS]           static-validation latency per parser family (p50/p99)
              executor [ITERATIONS]        executor overhead over raw JDBC on DuckDB
              isolation [ITERATIONS]       DuckDB in a child process vs in the executor's JVM: wall and CPU per
                                           query on the demo warehouse's gold SQL
              retrieval [N] [Q]            embed + top-k search at 1k and N stored examples, schema linking
              parser-bounds                what the largest accepted texts cost each parser, and the refused ones
              probe [ROUNDS]               this machine's speed now: a fixed piece of sqloop's work on one thread
                                           (pipeline --processes samples it during its run)
            """;

    private static int bench(List<String> argv) throws Exception {
        Args.forCommand(argv, BENCH_USAGE, "records", "latency-ms", "in-flight", "no-share", "questions", "regime", "llm-median-ms",
                "concurrency", "lane", "agent", "out", "cancel-at", "idle-seconds", "processes", "jvm-opts", "unique", "perf");
        String what = argv.isEmpty() ? "" : argv.get(0);
        Args args = new Args(argv.isEmpty() ? List.of() : argv.subList(1, argv.size()));
        String[] positional = args.positional().toArray(String[]::new);
        switch (what) {
            case "pipeline" -> {
                return PipelineBenchmark.run(args);
            }
            case "runner" -> {
                return RunnerBenchmark.run(args);
            }
            case "validator" -> ValidationBenchmark.main(positional);
            case "executor" -> ExecutorBenchmark.main(positional);
            case "isolation" -> IsolationBenchmark.main(positional);
            case "retrieval" -> RetrievalBenchmark.main(positional);
            case "probe" -> MachineSpeed.main(positional);
            case "parser-bounds" -> ParserBoundsBenchmark.main(positional);
            default -> throw new Args.UsageException("bench what? one of: pipeline, runner, validator, executor, isolation,"
                    + " retrieval, probe, parser-bounds");
        }
        return 0;
    }
}
