package dev.sqloop.cli;

import dev.sqloop.common.config.ConfigException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Help.Ansi;
import picocli.CommandLine.Model.CommandSpec;

/**
 * The {@code sqloop} command: every subcommand, its options and its help are declared once, on the command's class,
 * and parsed by picocli. This module's classpath is what {@code ./sqloop run SERVICE} ships, so it holds only the
 * services and the client commands: {@code demo}, {@code serve}, {@code eval}, {@code broker} and {@code chaos}
 * (embedded broker, simulated LLM, demo warehouse) live in the {@code embedded} module and {@code bench} in {@code lab},
 * whose entry points add them in place of the stand-ins this one lists.
 */
public final class Main {
    /** Set before logging starts: {@code dev.sqloop} loggers' level when {@code SQLOOP_LOG_LEVEL} is not set (see logback.xml). */
    public static final String DEFAULT_LOG_LEVEL = "sqloop.log.default";
    /** Likewise for Kafka, DJL and other libraries. */
    public static final String LIBRARY_LOG_LEVEL = "sqloop.log.libraries";

    /** Exit code: the command did what was asked. */
    public static final int OK = 0;
    /** Exit code: the command failed (a gateway or broker not there, a refusal, an error). */
    public static final int FAILED = 1;
    /** Exit code: the command line cannot be run as written (an unknown option, a missing argument, bad configuration). */
    public static final int USAGE = 2;
    /** Exit code: a waited batch finished, and some of its questions failed. */
    public static final int QUESTIONS_FAILED = 3;

    // The one-line summaries of the embedded module's commands: this module lists them (./sqloop help runs here) and
    // the embedded commands use the same constants as the first line of their own description.
    public static final String DEMO = "Run the embedded demo: broker, every stage, simulated LLM, DuckDB warehouse, 40 questions.";
    public static final String SERVE = "Run the whole pipeline in one JVM on your SQLOOP_* configuration, until Ctrl-C.";
    public static final String EVAL = "Score a gold-SQL dataset through the pipeline: VA, EX, TS, EM (./sqloop eval --help).";
    public static final String BENCH = "Benchmarks: pipeline, runner, validator, executor, isolation, retrieval, parser-bounds, probe.";
    public static final String BROKER = "Run a local KRaft Kafka broker for a multi-process dev stack.";
    public static final String CHAOS = "Questions through the services in their own JVMs while workers are SIGKILLed in turn.";
    public static final String TEST = "Run every test, unit and integration, on real servers (the launcher's; ./sqloop test --help).";

    private static final String[] EMBEDDED = {"demo", "serve", "eval", "bench", "broker", "chaos"};

    /**
     * Lucene announces its SIMD setup through java.util.logging on every start: at INFO, and without the incubating
     * Vector API (the launcher leaves it out: the JVM warns about incubator modules on every start) as a WARNING that
     * suggests adding it. Neither is for users: at sqloop's sizes the scalar search is fast enough
     * (fewshot-service/README.md). Held here: JUL keeps loggers weakly, and a collected logger forgets its level.
     */
    private static final java.util.logging.Logger[] LUCENE = new java.util.logging.Logger[2];

    private Main() {}

    /** The root command: {@code ./sqloop} alone prints the commands. */
    @Command(name = "./sqloop", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
            description = {"Turns natural-language questions into SQL, in batches through Kafka: it checks and runs the SQL",
                "read-only against your databases and repairs what fails. Every command answers --help."},
            synopsisSubcommandLabel = "COMMAND",
            footerHeading = "%n",
            footer = {"demo, serve, eval, broker and chaos run on the embedded module's classpath (testkit's broker, simulated",
                "LLM), bench on the lab module's (embedded's plus the benchmarks); every other command on cli's, which a",
                "deployment runs and which carries no test infrastructure.",
                "",
                "Exit codes: 0 done; 1 failed (a gateway or broker not there, a refusal); 2 usage (an unknown option, a",
                "missing argument, a bad setting); 3 a waited batch finished with failed questions (submit/retry --wait)."})
    static final class Root implements Callable<Integer> {
        @CommandLine.Spec
        CommandSpec spec;

        @Override
        public Integer call() {
            spec.commandLine().usage(spec.commandLine().getOut());
            return USAGE;
        }
    }

    /** {@code ./sqloop version} and {@code --version}: the build's version. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"sqloop " + version()};
        }
    }

    @Command(name = "version", description = "Print sqloop's version.")
    static final class VersionCommand implements Callable<Integer> {
        @Override
        public Integer call() {
            System.out.println("sqloop " + version());
            return OK;
        }
    }

    /** A command of the embedded or lab module, listed here and answered by name when it reaches this classpath. */
    @Command
    static final class Elsewhere implements Callable<Integer> {
        @CommandLine.Unmatched
        List<String> ignored = new ArrayList<>();
        @CommandLine.Spec
        CommandSpec spec;

        @Override
        public Integer call() {
            String name = spec.name();
            throw new Args.UsageException(switch (name) {
                case "test" -> "'test' is the launcher's own command: ./sqloop test (./sqloop test --help)";
                case "bench" -> "'bench' runs on the lab module's classpath (dev.sqloop.lab.Main): use ./sqloop bench";
                default -> "'" + name + "' runs on the embedded module's classpath (dev.sqloop.embedded.Main): use ./sqloop " + name;
            });
        }
    }

    /**
     * A command as {@code ./sqloop help} lists it: its one-line summary, and how to make it. Only the command a call
     * runs is made: picocli reflects over each command it is given, and a command's types (Kafka's for {@code dlq}) load
     * with it, so listing every command fully would cost every call a fraction of a second.
     */
    public record Entry(String summary, Supplier<Object> make) {
        /** A command class: its summary is the first line of its {@code @Command} description (no instance, no reflection of its members). */
        public static Entry of(Class<?> command, Supplier<Object> make) {
            Command c = command.getAnnotation(Command.class);
            if (c == null || c.description().length == 0) throw new IllegalArgumentException(command + " has no @Command description");
            return new Entry(c.description()[0], make);
        }
    }

    /** The stand-ins for the embedded and lab modules' commands: what this classpath lists but cannot run. */
    public static Map<String, Entry> elsewhere() {
        Map<String, Entry> out = new LinkedHashMap<>();
        Map<String, String> summaries = Map.of("demo", DEMO, "serve", SERVE, "eval", EVAL, "bench", BENCH, "broker", BROKER, "chaos", CHAOS);
        for (String name : EMBEDDED) out.put(name, new Entry(summaries.get(name), () -> standIn(name, summaries.get(name))));
        return out;
    }

    private static CommandLine standIn(String name, String summary) {
        CommandLine c = new CommandLine(new Elsewhere());
        c.getCommandSpec().name(name).usageMessage().description(summary);
        return c;
    }

    /** Every command, in the order {@code ./sqloop help} lists them; {@code embedded}: demo, serve, eval, bench, broker, chaos. */
    static Map<String, Entry> commands(Map<String, Entry> embedded) {
        Map<String, Entry> all = new LinkedHashMap<>();
        all.put("demo", embedded.get("demo"));
        all.put("serve", embedded.get("serve"));
        all.put("submit", Entry.of(SubmitCommand.class, SubmitCommand::new));
        all.put("status", Entry.of(SubmitCommand.Status.class, SubmitCommand.Status::new));
        all.put("cancel", Entry.of(SubmitCommand.Cancel.class, SubmitCommand.Cancel::new));
        all.put("retry", Entry.of(SubmitCommand.Retry.class, SubmitCommand.Retry::new));
        all.put("seed", Entry.of(SeedCommand.class, SeedCommand::new));
        all.put("examples", Entry.of(ExamplesCommand.class, ExamplesCommand::new));
        all.put("eval", embedded.get("eval"));
        all.put("dlq", Entry.of(DlqCommand.class, () -> new DlqCommand(System.getenv(), System.out, System.err)));
        all.put("run", Entry.of(RunCommand.class, RunCommand::new));
        all.put("broker", embedded.get("broker"));
        all.put("chaos", embedded.get("chaos"));
        all.put("bench", embedded.get("bench"));
        all.put("test", new Entry(TEST, () -> standIn("test", TEST)));
        all.put("help", new Entry("Print the commands, or one command's usage: ./sqloop help COMMAND.", CommandLine.HelpCommand::new));
        all.put("version", Entry.of(VersionCommand.class, VersionCommand::new));
        return all;
    }

    /** Every command made in full (tests, and whatever inspects the whole tree). */
    public static CommandLine commandLine(Map<String, Entry> embedded) {
        return commandLine(embedded, null);
    }

    /**
     * The command tree for one call: the command {@code argv} runs in full ({@code help X}: X), every other one by name
     * and summary only, which is all {@code ./sqloop help} shows of it. {@code argv} null: every command in full.
     */
    public static CommandLine commandLine(Map<String, Entry> embedded, String[] argv) {
        String invoked = argv == null ? null : argv.length == 0 ? "" : argv[0].equals("help") && argv.length > 1 ? argv[1] : argv[0];
        CommandLine root = new CommandLine(new Root());
        commands(embedded).forEach((name, entry) -> {
            boolean full = invoked == null || invoked.equals(name) || name.equals("help");
            root.addSubcommand(name, full ? entry.make().get() : listed(name, entry.summary()));
        });
        configure(root);
        return root;
    }

    /** A command as the list shows it: name and summary, no options (never run: a call that names it gets it in full). */
    private static CommandLine listed(String name, String summary) {
        CommandSpec spec = CommandSpec.create().name(name);
        spec.usageMessage().description(summary);
        return new CommandLine(spec);
    }

    /** House settings for a command tree: "usage:" headings, colour only on a terminal, options after operands too. */
    public static CommandLine configure(CommandLine root) {
        root.setColorScheme(CommandLine.Help.defaultColorScheme(Terminal.colourOnOut() ? Ansi.ON : Ansi.OFF));
        root.setUsageHelpWidth(110);
        root.setUsageHelpLongOptionsMaxWidth(30);
        root.setCaseInsensitiveEnumValuesAllowed(true);
        usageHeading(root);
        return root;
    }

    private static void usageHeading(CommandLine c) {
        CommandSpec spec = c.getCommandSpec();
        spec.usageMessage().synopsisHeading("usage: ").commandListHeading("%ncommands:%n")
                .optionListHeading("%noptions:%n").parameterListHeading("%narguments:%n");
        // every command answers -h/--help (a command that parses its own arguments, eval and bench, takes none here)
        if (!c.isUnmatchedOptionsArePositionalParams() && spec.findOption("--help") == null) {
            spec.addOption(picocli.CommandLine.Model.OptionSpec.builder("-h", "--help").usageHelp(true).description("Show this help and exit.").build());
        }
        c.getSubcommands().values().forEach(Main::usageHeading);
    }

    public static void main(String[] argv) {
        String command = argv.length == 0 ? "" : argv[0];
        // services log their settings at start (INFO); client commands stay quiet unless SQLOOP_LOG_LEVEL says otherwise
        defaultLogLevel(command.equals("run") ? "INFO" : "WARN",
                // dlq reports an unreachable broker itself, once; Kafka's per-retry connection warnings would bury it
                command.equals("dlq") ? "ERROR" : "WARN");
        if (command.equals("run") || command.equals("seed")) quietLucene(); // the commands that open an example index
        System.exit(execute(commandLine(elsewhere(), argv), argv));
    }

    /** Sets the default log levels read by logback.xml; only effective before the first logger is created. */
    public static void defaultLogLevel(String sqloop, String libraries) {
        if (System.getProperty(DEFAULT_LOG_LEVEL) == null) System.setProperty(DEFAULT_LOG_LEVEL, sqloop);
        if (System.getProperty(LIBRARY_LOG_LEVEL) == null) System.setProperty(LIBRARY_LOG_LEVEL, libraries);
    }

    /** Keeps Lucene's start-up announcement (java.util.logging, INFO) off the console; for commands that open an index. */
    public static void quietLucene() {
        LUCENE[0] = java.util.logging.Logger.getLogger("org.apache.lucene");
        LUCENE[0].setLevel(java.util.logging.Level.WARNING);
        LUCENE[1] = java.util.logging.Logger.getLogger("org.apache.lucene.internal.vectorization");
        LUCENE[1].setLevel(java.util.logging.Level.SEVERE);
    }

    /**
     * Runs the command line and returns its exit code ({@link #OK}, {@link #FAILED}, {@link #USAGE},
     * {@link #QUESTIONS_FAILED}), each failure said in one line on stderr: a stack trace only for what no one foresaw.
     */
    public static int execute(CommandLine root, String... argv) {
        PrintWriter err = root.getErr();
        root.setParameterExceptionHandler((e, args) -> {
            err.println("sqloop: " + e.getMessage());
            err.println("  (" + e.getCommandLine().getCommandSpec().qualifiedName() + " --help says what it takes)");
            err.flush();
            return USAGE;
        });
        root.setExecutionExceptionHandler((e, command, parsed) -> report(e, command, err));
        return root.execute(argv);
    }

    /**
     * The command run in this JVM, for tests: the exit code of a command that ran (0 after printing the help it was
     * asked for); a command line it cannot run is an {@link Args.UsageException}, and whatever the command threw is
     * thrown as it was.
     */
    public static int run(List<String> argv) throws Exception {
        return run(commandLine(elsewhere()), argv);
    }

    /** {@link #run(List)} on a given command tree (the embedded or lab module's). */
    public static int run(CommandLine root, List<String> argv) throws Exception {
        AtomicReference<Exception> thrown = new AtomicReference<>();
        root.setParameterExceptionHandler((e, args) -> {
            thrown.set(new Args.UsageException(e.getMessage()));
            return USAGE;
        });
        root.setExecutionExceptionHandler((e, command, parsed) -> {
            if (e instanceof Args.HelpRequested) return report(e, command, root.getErr());
            thrown.set(e);
            return FAILED;
        });
        int code = root.execute(argv.toArray(String[]::new));
        if (thrown.get() != null) throw thrown.get();
        return code;
    }

    private static int report(Exception e, CommandLine command, PrintWriter err) {
        int code;
        if (e instanceof Args.HelpRequested h) {
            command.getOut().print(h.usage()); // eval and bench print their own usage
            command.getOut().flush();
            return OK;
        } else if (e instanceof Args.UsageException || e instanceof ConfigException) {
            err.println("sqloop: " + e.getMessage());
            code = USAGE;
        } else if (e instanceof java.nio.file.NoSuchFileException f) {
            // a path argument that names nothing: the user's mistake, not a crash (relative to where ./sqloop was called)
            err.println("sqloop: no such file: " + f.getFile());
            code = USAGE;
        } else if (e instanceof java.net.ConnectException || e instanceof CommandFailure) {
            // a gateway or broker that is not there, a refusal: say where and what to do, not a stack trace
            err.println("sqloop: " + e.getMessage());
            code = e instanceof CommandFailure f ? f.exitCode() : FAILED;
        } else {
            err.println("sqloop: failed: " + e);
            e.printStackTrace(err);
            code = FAILED;
        }
        err.flush();
        return code;
    }

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
}
