package dev.sqloop.cli;

import dev.sqloop.common.config.ConfigException;
import java.util.Arrays;
import java.util.List;

/**
 * The {@code sqloop} command: dispatches subcommands. This module's classpath is what {@code ./sqloop run SERVICE}
 * ships, so it holds only the services and the client commands: {@code demo} and {@code bench} (embedded broker,
 * simulated LLM, demo warehouse) live in the {@code embedded} module, whose entry point the launcher picks for them.
 */
public final class Main {
    /** Set before logging starts: {@code dev.sqloop} loggers' level when {@code SQLOOP_LOG_LEVEL} is not set (see logback.xml). */
    public static final String DEFAULT_LOG_LEVEL = "sqloop.log.default";
    /** Likewise for Kafka, DJL and other libraries. */
    public static final String LIBRARY_LOG_LEVEL = "sqloop.log.libraries";

    static final String USAGE = """
            usage: ./sqloop <command> [options]

              demo                 run the embedded demo: broker, every stage, simulated LLM, DuckDB warehouse
                    [--serve] [--work-dir .sqloop/demo]
              test                 run every test (unit and integration, on real servers)
              bench pipeline       the whole pipeline against its LLM-bound and CPU-bound limits, CPU per stage, heap
                    [--questions N] [--regime llm|cpu|both] [--concurrency 256] [--processes] …  (./sqloop bench --help)
              bench runner         StageRunner throughput vs the ideal in_flight / latency
                    [--records N] [--latency-ms 100] [--in-flight 256] [--no-share]
              bench validator [ROUNDS]     static-validation latency per parser family (p50/p99)
              bench executor [ITERATIONS]  executor overhead over raw JDBC on DuckDB
              bench isolation [ITERATIONS] DuckDB in a child process vs in the executor's JVM (wall, CPU per query)
              bench retrieval [N] [Q]      embed + top-k search at 1k and N stored examples, schema linking
              bench parser-bounds          what the largest accepted texts cost each parser, and the refused ones
              bench probe [ROUNDS]         this machine's speed now: a fixed piece of sqloop's work on one thread
              submit FILE.jsonl    submit a batch to a gateway and follow it
                    --gateway URL [--api-key K] [--wait] [--out results.jsonl] [--resubmit] [--retry-failed [--reason R]]
              status ID [--batch]  a question's (or batch's) status from the gateway
                    (status, cancel, retry and examples take --gateway URL [--api-key K]; default SQLOOP_GATEWAY_URL,
                    else http://127.0.0.1:8080, where ./sqloop demo --serve and ./sqloop serve listen)
              cancel ID [--batch]  cancel a question (or batch): what is not final ends "cancelled", no more LLM calls
              retry ID [--batch]   run a failed question (or a batch's outage failures) again from attempt 1, after an outage
                    [--reason R[,R]] [--wait] [--out results.jsonl]
              run SERVICE          run one service alone, configured by SQLOOP_* environment variables:
                    generator (generate+repair; SQLOOP_GENERATOR_WORKERS narrows) | repair | validator | executor | fewshot | gateway
                    [--print-classpath]  print the classpath the service runs on, one entry a line, and exit
              seed FILE [--datasource NAME]
                                   seed the example store (YAML cases, defog CSV or JSONL); idempotent
              examples list|add|delete   the gateway's few-shot examples
                    list [--datasource D] [--source seed|auto|manual] [--q TEXT] [--prefix P] [--tag T] [--limit N] [--cursor C]
                    add --datasource D --question Q --sql SQL [--notes N] [--tags a,b]
                    delete ID          (all take --gateway URL [--api-key K])
              dlq list|show|replay     the dead letters on the dlq topic, and replaying them to their topic (once)
                    list [--stage S] [--reason R] [--topic T] [--since 2h|2026-11-23T10:00:00Z] [--limit N]
                    show OFFSET
                    replay [same filters] [--offset N]... [--dry-run]   (all take --bootstrap HOST:PORT; ./sqloop dlq --help)
              serve                the whole pipeline in one JVM on your SQLOOP_* configuration (embedded classpath)
                    [--data-dir DIR]
              eval DATASET         accuracy of a gold-SQL dataset through the pipeline: VA/EX/TS/EM (embedded classpath)
                    [--max-attempts 1,3] [--map db=ds,...] [--ts N] [--out DIR] …  (./sqloop eval --help)
              broker               a local KRaft Kafka broker for a multi-process dev stack (embedded classpath)
                    [--data-dir DIR]
              chaos                N questions through the services in their own JVMs while workers are SIGKILLed in turn (embedded classpath)
              help                 this text; every command answers --help
              version              sqloop's version

            demo, bench, serve, eval, broker and chaos run on the embedded module's classpath (it carries testkit); every other command on
            cli's, which has no testkit, embedded broker or simulated LLM.
            """;

    /**
     * Lucene announces its SIMD setup through java.util.logging at INFO on every start: not for users. Held here:
     * JUL keeps loggers weakly, and a collected logger forgets its level.
     */
    private static final java.util.logging.Logger LUCENE = java.util.logging.Logger.getLogger("org.apache.lucene");

    /** A command: returns the process exit code. */
    @FunctionalInterface
    public interface Command {
        int run() throws Exception;
    }

    private Main() {}

    public static String usage() {
        return USAGE;
    }

    public static void main(String[] argv) {
        List<String> args = Arrays.asList(argv);
        // services log their settings at start (INFO); client commands stay quiet unless SQLOOP_LOG_LEVEL says otherwise
        defaultLogLevel(!args.isEmpty() && args.get(0).equals("run") ? "INFO" : "WARN",
                // dlq reports an unreachable broker itself, once; Kafka's per-retry connection warnings would bury it
                !args.isEmpty() && args.get(0).equals("dlq") ? "ERROR" : "WARN");
        exit(() -> run(args));
    }

    /** Sets the default log levels read by logback.xml; only effective before the first logger is created. */
    public static void defaultLogLevel(String sqloop, String libraries) {
        if (System.getProperty(DEFAULT_LOG_LEVEL) == null) System.setProperty(DEFAULT_LOG_LEVEL, sqloop);
        if (System.getProperty(LIBRARY_LOG_LEVEL) == null) System.setProperty(LIBRARY_LOG_LEVEL, libraries);
    }

    /** Runs {@code command} and exits with its code: 2 for a usage or configuration error (its message, no stack), 1 for a failure. */
    public static void exit(Command command) {
        LUCENE.setLevel(java.util.logging.Level.WARNING);
        int code;
        try {
            code = command.run();
        } catch (Args.HelpRequested h) {
            System.out.print(h.usage());
            code = 0;
        } catch (Args.UsageException | ConfigException e) {
            System.err.println("sqloop: " + e.getMessage());
            code = 2;
        } catch (java.nio.file.NoSuchFileException e) {
            // a path argument that names nothing: the user's mistake, not a crash (relative to where ./sqloop was called)
            System.err.println("sqloop: no such file: " + e.getFile());
            code = 2;
        } catch (java.net.ConnectException e) {
            // a gateway or broker that is not there: say where and what to do, not a stack trace
            System.err.println("sqloop: " + e.getMessage());
            code = 1;
        } catch (Exception e) {
            System.err.println("sqloop: failed: " + e);
            e.printStackTrace(System.err);
            code = 1;
        }
        System.exit(code);
    }

    public static int run(List<String> argv) throws Exception {
        if (argv.isEmpty()) {
            System.out.print(USAGE);
            return 2;
        }
        String command = argv.get(0);
        List<String> rest = argv.subList(1, argv.size());
        return switch (command) {
            case "submit" -> SubmitCommand.run(Args.forCommand(rest, SubmitCommand.USAGE, "gateway", "api-key", "wait", "out", "resubmit",
                    "retry-failed", "reason"));
            case "status" -> SubmitCommand.status(Args.forCommand(rest, SubmitCommand.STATUS_USAGE, "gateway", "api-key", "batch"));
            case "cancel" -> SubmitCommand.cancel(Args.forCommand(rest, SubmitCommand.CANCEL_USAGE, "gateway", "api-key", "batch"));
            case "retry" -> SubmitCommand.retry(Args.forCommand(rest, SubmitCommand.RETRY_USAGE, "gateway", "api-key", "batch", "reason",
                    "wait", "out"));
            case "run" -> {
                Args.forCommand(rest, RUN_USAGE, "print-classpath");
                yield runService(rest);
            }
            case "seed" -> seed(Args.forCommand(rest, SEED_USAGE, "datasource"));
            case "examples" -> ExamplesCommand.run(Args.forCommand(rest, ExamplesCommand.USAGE, ExamplesCommand.OPTIONS));
            case "dlq" -> DlqCommand.run(new Args(rest));
            case "demo", "bench", "serve", "eval", "broker", "chaos" -> throw new Args.UsageException("'" + command + "' runs on the embedded module's classpath "
                    + "(dev.sqloop.embedded.Main): use ./sqloop " + command);
            case "help", "--help", "-h" -> {
                System.out.print(USAGE);
                yield 0;
            }
            case "version", "--version" -> {
                System.out.println("sqloop " + version());
                yield 0;
            }
            default -> throw new Args.UsageException("unknown command '" + command + "'\n" + USAGE);
        };
    }

    /** Each service is also runnable alone, for real deployments: the same Main its container would run. */
    private static int runService(List<String> argv) throws Exception {
        String service = argv.isEmpty() ? "" : argv.get(0);
        List<String> options = argv.isEmpty() ? List.of() : argv.subList(1, argv.size());
        if (!List.of("generator", "repair", "validator", "executor", "fewshot", "gateway").contains(service)) {
            throw new Args.UsageException("run what? one of: generator, repair, validator, executor, fewshot, gateway");
        }
        if (options.contains("--print-classpath")) {
            // the classpath of this very JVM: what the service would run on
            for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) System.out.println(entry);
            return 0;
        }
        String[] rest = options.toArray(String[]::new);
        switch (service) {
            case "generator" -> dev.sqloop.generator.Main.main(rest);
            case "repair" -> dev.sqloop.generator.Main.main(new String[] {"repair"});
            case "validator" -> dev.sqloop.validator.Main.main(rest);
            case "executor" -> dev.sqloop.executor.Main.main(rest);
            case "fewshot" -> dev.sqloop.fewshot.Main.main(rest);
            default -> dev.sqloop.gateway.Main.main(rest);
        }
        return 0;
    }

    static final String RUN_USAGE = """
            usage: ./sqloop run SERVICE [--print-classpath]

            Runs one service alone, configured by SQLOOP_* environment variables (what its container runs):
              generator   generate + repair (SQLOOP_GENERATOR_WORKERS narrows)
              repair      the repair worker alone
              validator | executor | fewshot | gateway
            options:
              --print-classpath   print the classpath the service runs on, one entry a line, and exit
            """;

    static final String SEED_USAGE = """
            usage: ./sqloop seed FILE [--datasource NAME]

            Seeds the example store SQLOOP_FEWSHOT_* configures (the one the fewshot service reads) from YAML
            cases ({id, question, expected_sql, tags}), defog CSV or JSONL; idempotent. Rows without a datasource
            take --datasource (default "default").
            """;

    /** The build's version ({@code sqloop-version.properties}, filtered by Maven). */
    static String version() {
        try (var in = Main.class.getResourceAsStream("/sqloop-version.properties")) {
            java.util.Properties p = new java.util.Properties();
            if (in != null) p.load(in);
            return p.getProperty("version", "unknown");
        } catch (java.io.IOException e) {
            return "unknown";
        }
    }

    /** {@code ./sqloop seed FILE}: seeds the configured example store (SQLOOP_FEWSHOT_*), as the fewshot service reads it. */
    private static int seed(Args args) throws Exception {
        if (args.positional().isEmpty()) throw new Args.UsageException("seed needs a file: ./sqloop seed FILE [--datasource NAME]");
        String[] argv = {"seed", args.positional().get(0), args.string("datasource", "default")};
        dev.sqloop.fewshot.Main.main(argv);
        return 0;
    }
}
