package dev.sqloop.embedded;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.cli.Args;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The embedded classpath's commands answer --help (exit 0) and refuse unknown options by name, like cli's. */
class EmbeddedCommandLineTest {
    @Test
    void demoServeEvalAndBenchAnswerHelp() {
        for (String command : List.of("demo", "serve", "eval", "bench", "broker", "chaos")) {
            Args.HelpRequested help = assertThrows(Args.HelpRequested.class, () -> Main.run(List.of(command, "--help")), command);
            assertTrue(help.usage().contains("usage: ./sqloop " + command), command + ": " + help.usage());
        }
    }

    @Test
    void unknownOptionsAndMissingArgumentsAreUsageErrors() {
        for (List<String> argv : List.of(List.of("serve", "--bogus"), List.of("broker", "--bogus"), List.of("chaos", "--bogus", "1"), List.of("demo", "--bogus", "1"), List.of("eval", "x.csv", "--bogus"),
                List.of("eval"), List.of("bench", "nothing"))) {
            Args.UsageException e = assertThrows(Args.UsageException.class, () -> Main.run(argv), argv.toString());
            assertTrue(!e.getMessage().isBlank(), argv + ": " + e.getMessage());
        }
    }

    @Test
    void benchCountsThatAreNotWholeNumbersOfOneOrMoreAreUsageErrorsNamingTheCount() {
        for (List<String> argv : List.of(List.of("bench", "validator", "x"), List.of("bench", "executor", "0"), List.of("bench", "isolation", "0"),
                List.of("bench", "retrieval", "1000", "-5"), List.of("bench", "probe", "2.5"))) {
            Args.UsageException e = assertThrows(Args.UsageException.class, () -> Main.run(argv), argv.toString());
            assertTrue(e.getMessage().contains("whole number of 1 or more, was '" + argv.getLast() + "'"), argv + ": " + e.getMessage());
        }
    }
}
