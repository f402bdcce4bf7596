package dev.sqloop.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.cli.Args;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The lab classpath's command line, as {@code ./sqloop bench} reaches it: bench and each benchmark answer --help, bad
 * counts are usage errors naming the count, and the embedded commands are still there in full.
 */
class LabCommandLineTest {
    private static final List<String> BENCHMARKS = List.of("pipeline", "runner", "validator", "executor", "isolation", "retrieval",
            "retrieval-stores", "parser-bounds", "probe");

    private static String help(List<String> argv) throws Exception {
        PrintStream original = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            assertEquals(0, Main.run(argv), argv.toString());
        } finally {
            System.setOut(original);
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void benchAndEachBenchmarkAnswerHelp() throws Exception {
        String bench = help(List.of("bench", "--help"));
        assertTrue(bench.startsWith("usage: ./sqloop bench "), bench);
        for (String name : BENCHMARKS) {
            assertTrue(bench.contains(name), name + " is in bench's usage:\n" + bench);
            assertEquals(bench, help(List.of("bench", name, "--help")), name + " --help");
        }
    }

    /** The lab's tree is the embedded one plus bench: demo and the rest run here in full, not as stand-ins. */
    @Test
    void theEmbeddedCommandsAreThemselvesHere() throws Exception {
        for (String command : List.of("demo", "serve", "eval", "broker", "chaos")) {
            assertTrue(help(List.of(command, "--help")).contains("usage: ./sqloop " + command), command);
        }
    }

    @Test
    void anUnknownBenchmarkIsAUsageErrorListingThem() {
        Args.UsageException e = assertThrows(Args.UsageException.class, () -> Main.run(List.of("bench", "nothing")));
        for (String name : BENCHMARKS) assertTrue(e.getMessage().contains(name), name + ": " + e.getMessage());
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
