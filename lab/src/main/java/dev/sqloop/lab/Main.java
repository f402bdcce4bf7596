package dev.sqloop.lab;

import dev.sqloop.cli.Args;
import dev.sqloop.cli.Main.Entry;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * The entry point for {@code ./sqloop bench}: the embedded module's command tree with {@code bench} in place of its
 * stand-in. The benchmarks live here, not in {@code embedded}, so nothing a user deploys or demos carries them.
 */
public final class Main {
    private Main() {}

    public static void main(String[] argv) {
        // as embedded's: sqloop's INFO lines and the embedded broker's warnings would bury the figures
        dev.sqloop.cli.Main.defaultLogLevel("WARN", "ERROR");
        dev.sqloop.cli.Main.quietLucene();
        System.exit(dev.sqloop.cli.Main.execute(dev.sqloop.cli.Main.commandLine(own(), argv), argv));
    }

    /** The embedded module's commands, and this module's bench. */
    static Map<String, Entry> own() {
        Map<String, Entry> own = new LinkedHashMap<>(dev.sqloop.embedded.Main.own());
        own.put("bench", Entry.of(BenchCmd.class, () -> dev.sqloop.embedded.Main.passThrough(new BenchCmd())));
        return own;
    }

    /** Runs a command in this JVM, for tests: as {@link dev.sqloop.cli.Main#run(List)}. */
    static int run(List<String> argv) throws Exception {
        return dev.sqloop.cli.Main.run(dev.sqloop.cli.Main.commandLine(own()), argv);
    }

    @Command(name = "bench", description = dev.sqloop.cli.Main.BENCH)
    static final class BenchCmd implements Callable<Integer> {
        @Parameters(paramLabel = "ARG", description = "as ./sqloop bench --help says")
        List<String> args = new ArrayList<>();

        @Override
        public Integer call() throws Exception {
            return bench(args);
        }
    }

    static final String BENCH_USAGE = """
            usage: ./sqloop bench pipeline|cost|runner|validator|executor|isolation|retrieval|retrieval-stores|parser-bounds|probe [options]

              pipeline [--questions N] [--regime llm|cpu|both] [--llm-median-ms 800] [--concurrency 256]
                       [--lane on|off|both] [--agent N] [--unique] [--processes [--jvm-opts "OPTS"]] [--out DIR]
                                           the whole pipeline against its LLM-bound and CPU-bound limits,
                                           CPU per stage, heap timeline, speed-up over a sequential agent;
                                           --processes: each service in its own JVM, CPU and heap per process

              cost [--questions 2000] [--out DIR]
                                           the same batch over two datasources online and through provider
                                           batches (SQLOOP_LLM_MODE=batch): tokens, cache share, USD per
                                           question and per success, provider batches, wall time
              cost --single-datasource [--examples] [--databases a,b] [--schema-budget N] [--out DIR]
                                           each defog database as one single-datasource batch (online):
                                           prompt tokens per question and per call (mean, p95), cached
                                           share, USD per question, what the prompts share and hold;
                                           --examples: five seeded examples in every prompt

              runner [--records N] [--latency-ms 100] [--in-flight 256] [--no-share]
                                           StageRunner throughput vs the ideal in_flight / latency
              validator [ROUNDS]           static-validation latency per parser family (p50/p99)
              executor [ITERATIONS]        executor overhead over raw JDBC on DuckDB
              isolation [ITERATIONS]       DuckDB in a child process vs in the executor's JVM: wall and CPU per
                                           query on the demo warehouse's gold SQL
              retrieval [N] [Q]            embed + top-k search at 1k and N stored examples, schema linking
              retrieval-stores [Q]         the same 1k examples in Lucene and a real Chroma server: load, search p50/p99
              parser-bounds                what the largest accepted texts cost each parser, and the refused ones
              probe [ROUNDS]               this machine's speed now: a fixed piece of sqloop's work on one thread
                                           (pipeline --processes samples it during its run)
            """;

    private static int bench(List<String> argv) throws Exception {
        Args.forCommand(argv, BENCH_USAGE, "records", "latency-ms", "in-flight", "no-share", "questions", "regime", "llm-median-ms",
                "concurrency", "lane", "agent", "out", "single-datasource", "databases", "schema-budget", "examples", "cancel-at", "idle-seconds", "processes", "jvm-opts", "unique", "perf");
        String what = argv.isEmpty() ? "" : argv.get(0);
        Args args = new Args(argv.isEmpty() ? List.of() : argv.subList(1, argv.size()));
        String[] positional = args.positional().toArray(String[]::new);
        switch (what) {
            case "pipeline" -> {
                return PipelineBenchmark.run(args);
            }
            case "cost" -> {
                return args.flag("single-datasource") ? SingleDatasourceCost.run(args) : CostBenchmark.run(args);
            }
            case "runner" -> {
                return RunnerBenchmark.run(args);
            }
            case "validator" -> ValidationBenchmark.main(positional);
            case "executor" -> ExecutorBenchmark.main(positional);
            case "isolation" -> IsolationBenchmark.main(positional);
            case "retrieval" -> RetrievalBenchmark.main(positional);
            case "retrieval-stores" -> StoreRetrievalBenchmark.main(positional);
            case "probe" -> MachineSpeed.main(positional);
            case "parser-bounds" -> ParserBoundsBenchmark.main(positional);
            default -> throw new Args.UsageException("bench what? one of: pipeline, cost, runner, validator, executor, isolation,"
                    + " retrieval, retrieval-stores, probe, parser-bounds");
        }
        return 0;
    }
}
