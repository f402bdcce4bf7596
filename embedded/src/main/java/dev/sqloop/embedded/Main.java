package dev.sqloop.embedded;

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
 * The entry point for what runs on the embedded classpath (testkit's broker, simulated LLM and demo warehouse):
 * {@code demo}, {@code serve}, {@code eval}, {@code broker} and {@code chaos}, in {@link dev.sqloop.cli.Main}'s command
 * tree in place of its stand-ins; the launcher sends only those here. {@code bench} stays a stand-in: the benchmarks
 * live in the {@code lab} module, whose entry point adds them to this tree.
 */
public final class Main {
    private Main() {}

    public static void main(String[] argv) {
        // the demo prints its own table: sqloop's INFO lines and the embedded broker's warnings would bury it
        dev.sqloop.cli.Main.defaultLogLevel("WARN", "ERROR");
        dev.sqloop.cli.Main.quietLucene();
        int status = dev.sqloop.cli.Main.execute(dev.sqloop.cli.Main.commandLine(own(), argv), argv);
        // a JVM that loaded chDB ends through testkit's exit guard (libc's _exit), which must know the status
        dev.sqloop.testkit.engines.ChdbLibrary.exitStatus(status);
        System.exit(status);
    }

    /** This module's commands, in place of cli's stand-ins ({@code bench}: cli's stand-in, naming lab). */
    public static Map<String, Entry> own() {
        Map<String, Entry> own = new LinkedHashMap<>();
        own.put("demo", Entry.of(Demo.Cmd.class, Demo.Cmd::new));
        own.put("serve", Entry.of(Serve.Cmd.class, Serve.Cmd::new));
        own.put("eval", Entry.of(EvalCmd.class, () -> passThrough(new EvalCmd())));
        own.put("bench", dev.sqloop.cli.Main.elsewhere().get("bench"));
        own.put("broker", Entry.of(Broker.Cmd.class, Broker.Cmd::new));
        own.put("chaos", Entry.of(Chaos.Cmd.class, Chaos.Cmd::new));
        return own;
    }

    /** Every sqloop command, this module's own included. */
    static CommandLine commandLine() {
        return dev.sqloop.cli.Main.commandLine(own());
    }

    /** Runs a command in this JVM, for tests: as {@link dev.sqloop.cli.Main#run(List)}. */
    static int run(List<String> argv) throws Exception {
        return dev.sqloop.cli.Main.run(commandLine(), argv);
    }

    /** eval and lab's bench parse their own arguments ({@link Args}), in order: picocli hands them over untouched. */
    public static CommandLine passThrough(Object command) {
        CommandLine c = new CommandLine(command);
        c.setUnmatchedOptionsArePositionalParams(true);
        c.setStopAtPositional(true);
        return c;
    }

    @Command(name = "eval", description = dev.sqloop.cli.Main.EVAL)
    static final class EvalCmd implements Callable<Integer> {
        @Parameters(paramLabel = "ARG", description = "as ./sqloop eval --help says")
        List<String> args = new ArrayList<>();

        @Override
        public Integer call() throws Exception {
            return dev.sqloop.embedded.eval.Eval.run(new Args(args));
        }
    }
}
