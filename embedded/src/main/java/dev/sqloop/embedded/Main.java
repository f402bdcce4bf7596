package dev.sqloop.embedded;

import dev.sqloop.cli.Args;
import dev.sqloop.embedded.bench.ExecutorBenchmark;
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
            case "demo" -> Demo.run(new Args(rest));
            case "serve" -> Serve.run(new Args(rest));
            case "eval" -> dev.sqloop.embedded.eval.Eval.run(new Args(rest));
            case "bench" -> bench(rest);
            default -> dev.sqloop.cli.Main.run(argv);
        };
    }

    private static int bench(List<String> argv) throws Exception {
        String what = argv.isEmpty() ? "" : argv.get(0);
        Args args = new Args(argv.isEmpty() ? List.of() : argv.subList(1, argv.size()));
        String[] positional = args.positional().toArray(String[]::new);
        switch (what) {
            case "runner" -> {
                return RunnerBenchmark.run(args);
            }
            case "validator" -> ValidationBenchmark.main(positional);
            case "executor" -> ExecutorBenchmark.main(positional);
            case "retrieval" -> RetrievalBenchmark.main(positional);
            default -> throw new Args.UsageException("bench what? one of: runner, validator, executor, retrieval");
        }
        return 0;
    }
}
