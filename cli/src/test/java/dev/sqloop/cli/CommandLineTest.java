package dev.sqloop.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Every command answers --help with its usage (exit 0), and refuses an unknown option by name (exit 2). */
class CommandLineTest {
    @Test
    void everyCommandAnswersHelpWithItsOwnUsage() {
        for (String command : List.of("submit", "status", "cancel", "retry", "run", "seed", "examples")) {
            for (String flag : List.of("--help", "-h")) {
                Args.HelpRequested help = assertThrows(Args.HelpRequested.class, () -> Main.run(List.of(command, flag)),
                        command + " " + flag);
                assertTrue(help.usage().contains("usage: ./sqloop " + command), command + ": " + help.usage());
            }
        }
        assertThrows(Args.HelpRequested.class, () -> Main.run(List.of("seed", "file.yaml", "--help")), "--help after arguments too");
        // dlq prints its own usage for itself and each subcommand (DlqCommandTest checks the text)
        for (List<String> argv : List.of(List.of("dlq", "--help"), List.of("dlq", "list", "--help"), List.of("dlq", "replay", "--help"))) {
            try {
                assertEquals(0, Main.run(argv), argv.toString());
            } catch (Exception e) {
                throw new AssertionError(argv + " did not answer its usage", e);
            }
        }
    }

    @Test
    void everyCommandRefusesAnUnknownOptionByName() {
        for (String command : List.of("submit", "status", "cancel", "retry", "run", "seed", "examples")) {
            Args.UsageException e = assertThrows(Args.UsageException.class, () -> Main.run(List.of(command, "x", "--bogus", "1")), command);
            assertTrue(e.getMessage().contains("unknown option --bogus"), command + ": " + e.getMessage());
        }
    }

    @Test
    void versionAndTopLevelHelpExitZero() throws Exception {
        assertEquals(0, Main.run(List.of("--version")));
        assertEquals(0, Main.run(List.of("help")));
        assertTrue(Main.version().matches("\\d+\\.\\d+\\.\\d+.*"), "the build's version: " + Main.version());
        assertEquals(2, assertThrows(Args.UsageException.class, () -> Main.run(List.of("nonsense"))).getMessage().startsWith("unknown command") ? 2 : 0);
    }

    @Test
    void topLevelHelpNamesEveryBenchmark() {
        for (String bench : List.of("pipeline", "runner", "validator", "executor", "isolation", "retrieval", "parser-bounds", "probe")) {
            assertTrue(Main.USAGE.contains("bench " + bench), bench);
        }
    }

    /** No gateway where the command looks: where it looked and how to start or name one, not a bare JDK exception. */
    @Test
    void aGatewayThatIsNotThereIsNamedWithWhatToDo() throws Exception {
        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            port = s.getLocalPort();
        }
        java.net.ConnectException e = assertThrows(java.net.ConnectException.class,
                () -> Main.run(List.of("status", "q-1", "--gateway", "http://127.0.0.1:" + port)));
        assertTrue(e.getMessage().startsWith("cannot reach the gateway at http://127.0.0.1:" + port), e.getMessage());
        assertTrue(e.getMessage().contains("--gateway URL") && e.getMessage().contains("./sqloop demo --serve"), e.getMessage());
        assertFalse(e.getMessage().contains("null"), e.getMessage());
    }

    @Test
    void switchesNeverSwallowTheNextArgument() {
        Args a = new Args(List.of("--batch", "b-123", "--reason", "llm_unavailable", "--wait"));
        assertEquals(List.of("b-123"), a.positional(), "the id after --batch is the id");
        assertTrue(a.flag("batch"));
        assertTrue(a.flag("wait"));
        assertEquals("llm_unavailable", a.string("reason", null));
        Args off = new Args(List.of("x", "--wait=false"));
        assertEquals(false, off.flag("wait"));
    }
}
