package dev.sqloop.embedded;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.cli.Args;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The embedded classpath's commands answer --help (exit 0) and refuse unknown options by name, like cli's. */
class EmbeddedCommandLineTest {
    private static String help(String command) throws Exception {
        PrintStream original = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            assertEquals(0, Main.run(List.of(command, "--help")), command);
        } finally {
            System.setOut(original);
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void demoServeEvalBrokerAndChaosAnswerHelp() throws Exception {
        for (String command : List.of("demo", "serve", "eval", "broker", "chaos")) {
            assertTrue(help(command).contains("usage: ./sqloop " + command), command + ": " + help(command));
        }
        String serve = help("serve");
        assertTrue(serve.contains("SQLOOP_MANAGEMENT_PORT") && serve.contains("9405"), "serve's help names its ports: " + serve);
    }

    /** Here the embedded commands are themselves, not cli's stand-ins, and the list is the same one cli prints. */
    @Test
    void theTopLevelHelpListsTheEmbeddedCommandsWithTheirOwnSummaries() throws Exception {
        PrintStream original = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            assertEquals(0, Main.run(List.of("help")));
        } finally {
            System.setOut(original);
        }
        String list = out.toString(StandardCharsets.UTF_8);
        for (String summary : List.of(dev.sqloop.cli.Main.DEMO, dev.sqloop.cli.Main.SERVE, dev.sqloop.cli.Main.EVAL, dev.sqloop.cli.Main.BENCH,
                dev.sqloop.cli.Main.BROKER, dev.sqloop.cli.Main.CHAOS)) {
            assertTrue(list.contains(summary), summary + " in\n" + list);
        }
    }

    @Test
    void unknownOptionsAndMissingArgumentsAreUsageErrors() {
        for (List<String> argv : List.of(List.of("serve", "--bogus"), List.of("broker", "--bogus"), List.of("chaos", "--bogus", "1"), List.of("demo", "--bogus", "1"), List.of("eval", "x.csv", "--bogus"),
                List.of("eval"), List.of("serve", "extra"), List.of("chaos", "--questions", "many"))) {
            Args.UsageException e = assertThrows(Args.UsageException.class, () -> Main.run(argv), argv.toString());
            assertTrue(!e.getMessage().isBlank(), argv + ": " + e.getMessage());
        }
    }

    /** The benchmarks are lab's: here bench is listed (above) but names the classpath that runs it. */
    @Test
    void benchIsNamedHereAndSentToTheLab() {
        Args.UsageException e = assertThrows(Args.UsageException.class, () -> Main.run(List.of("bench", "probe")));
        assertTrue(e.getMessage().contains("lab module") && e.getMessage().contains("./sqloop bench"), e.getMessage());
    }
}
