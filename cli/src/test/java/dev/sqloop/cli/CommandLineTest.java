package dev.sqloop.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Every command answers --help with its usage (exit 0), refuses an unknown option by name (exit 2), and says a failure
 * in one line with the documented exit code.
 */
class CommandLineTest {
    private static final List<String> CLIENT_COMMANDS = List.of("submit", "status", "cancel", "retry", "run", "seed", "examples", "dlq");

    /** What a command printed on stdout, and its exit code. */
    record Printed(int code, String out) {}

    private static Printed run(String... argv) throws Exception {
        PrintStream original = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            int code = Main.run(List.of(argv));
            return new Printed(code, out.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(original);
        }
    }

    /** The whole process's answer, as main gives it: exit code and stderr. */
    private static Printed execute(String... argv) {
        CommandLine root = Main.commandLine(Main.elsewhere());
        StringWriter err = new StringWriter();
        root.setErr(new PrintWriter(err, true));
        root.setOut(new PrintWriter(new StringWriter(), true));
        return new Printed(Main.execute(root, argv), err.toString());
    }

    @Test
    void everyCommandAnswersHelpWithItsOwnUsage() throws Exception {
        for (String command : CLIENT_COMMANDS) {
            for (String flag : List.of("--help", "-h")) {
                Printed help = run(command, flag);
                assertEquals(0, help.code(), command + " " + flag);
                assertTrue(help.out().contains("usage: ./sqloop " + command), command + ": " + help.out());
            }
        }
        assertTrue(run("seed", "file.yaml", "--help").out().contains("usage: ./sqloop seed"), "--help after arguments too");
        for (List<String> argv : List.of(List.of("dlq", "list", "--help"), List.of("dlq", "replay", "--help"), List.of("examples", "add", "--help"))) {
            Printed help = run(argv.toArray(String[]::new));
            assertEquals(0, help.code(), argv.toString());
            assertTrue(help.out().contains("usage: ./sqloop " + String.join(" ", argv.subList(0, 2))), argv + ": " + help.out());
        }
    }

    /** The list ./sqloop help prints is generated from the commands: every one is there, with its summary. */
    @Test
    void topLevelHelpListsEveryCommandWithItsSummary() throws Exception {
        Printed help = run("help");
        assertEquals(0, help.code());
        for (String command : List.of("demo", "serve", "submit", "status", "cancel", "retry", "seed", "examples", "eval", "dlq", "run",
                "broker", "chaos", "bench", "test", "help", "version")) {
            assertTrue(help.out().lines().anyMatch(l -> l.strip().startsWith(command + " ")), command + " in\n" + help.out());
        }
        assertTrue(help.out().contains(Main.DEMO) && help.out().contains(Main.TEST), help.out());
        assertTrue(help.out().contains("3 a waited batch finished with failed questions"), "the exit codes are documented");
        assertEquals(help.out(), run("--help").out());
        assertFalse(help.out().contains("\u001b["), "no colour when stdout is not a terminal");
    }

    @Test
    void everyCommandRefusesAnUnknownOptionByName() {
        for (String command : CLIENT_COMMANDS) {
            // an operand each accepts, then the unknown option
            String operand = switch (command) {
                case "run" -> "executor";
                case "dlq" -> "list";
                case "examples" -> "list";
                default -> "x";
            };
            Args.UsageException e = assertThrows(Args.UsageException.class, () -> Main.run(List.of(command, operand, "--bogus", "1")), command);
            assertTrue(e.getMessage().contains("--bogus"), command + ": " + e.getMessage());
        }
        Printed answer = execute("status", "q-1", "--bogus");
        assertEquals(Main.USAGE, answer.code());
        assertTrue(answer.out().startsWith("sqloop: Unknown option: '--bogus'") && answer.out().contains("./sqloop status --help"), answer.out());
        assertFalse(answer.out().contains("\tat "), "no stack trace: " + answer.out());
    }

    @Test
    void missingArgumentsAndBadValuesAreUsageErrorsNamingThem() {
        assertTrue(execute("status").out().contains("Missing required parameter: 'ID'"), execute("status").out());
        Printed service = execute("run", "nothing");
        assertEquals(Main.USAGE, service.code());
        assertTrue(service.out().contains("generator") && service.out().contains("'nothing'"), service.out());
        assertEquals(Main.USAGE, execute("examples", "add", "--datasource", "d").code(), "--question and --sql are required");
    }

    /** seed reads a file or a Chroma collection: neither, both, or half of --from-chroma is a usage error saying so. */
    @Test
    void seedTakesAFileOrAChromaCollection() {
        List<List<String>> wrong = List.of(List.of("seed"), List.of("seed", "pairs.yaml", "--from-chroma", "http://localhost:8000"),
                List.of("seed", "--from-chroma", "http://localhost:8000"), List.of("seed", "pairs.yaml", "--chroma-collection", "examples"));
        List<String> said = List.of("a FILE, or --from-chroma", "not both", "needs --chroma-collection", "need --from-chroma");
        for (int i = 0; i < wrong.size(); i++) {
            List<String> argv = wrong.get(i);
            Args.UsageException e = assertThrows(Args.UsageException.class, () -> Main.run(argv), argv.toString());
            assertTrue(e.getMessage().contains(said.get(i)), argv + ": " + e.getMessage());
        }
    }

    @Test
    void versionAndTopLevelHelpExitZero() throws Exception {
        assertEquals(0, run("--version").code());
        assertTrue(run("version").out().startsWith("sqloop "), "version prints the build's version");
        assertTrue(Main.version().matches("\\d+\\.\\d+\\.\\d+.*"), "the build's version: " + Main.version());
        assertEquals(Main.USAGE, execute("nonsense").code());
        assertEquals(Main.USAGE, run().code(), "no command: the list of commands, as a usage error");
    }

    @Test
    void theEmbeddedModulesCommandsAreNamedHereAndSentThere() {
        for (String command : List.of("demo", "serve", "eval", "bench", "broker", "chaos")) {
            Args.UsageException e = assertThrows(Args.UsageException.class, () -> Main.run(List.of(command)), command);
            assertTrue(e.getMessage().contains("./sqloop " + command), e.getMessage());
        }
        assertTrue(assertThrows(Args.UsageException.class, () -> Main.run(List.of("test"))).getMessage().contains("launcher"));
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
        assertTrue(e.getMessage().contains("--gateway URL") && e.getMessage().contains("./sqloop serve"), e.getMessage());
        assertFalse(e.getMessage().contains("null"), e.getMessage());
        Printed answer = execute("seed", writeSeeds().toString(), "--gateway", "http://127.0.0.1:" + port);
        assertEquals(Main.FAILED, answer.code());
        assertTrue(answer.out().startsWith("sqloop: cannot reach the gateway") && !answer.out().contains("\tat "), answer.out());
    }

    @Test
    void switchesNeverSwallowTheNextArgument() throws Exception {
        SubmitCommand.Retry retry = new SubmitCommand.Retry();
        new CommandLine(retry).parseArgs("--batch", "b-123", "--reason", "llm_unavailable,deadline_exceeded", "--wait");
        assertEquals("b-123", retry.target.id, "the id after --batch is the id");
        assertTrue(retry.target.batch && retry.wait);
        assertEquals(List.of("llm_unavailable", "deadline_exceeded"), retry.reasons);
        // eval and bench still parse their own arguments
        Args a = new Args(List.of("--batch", "b-123", "--reason", "llm_unavailable", "--wait"));
        assertEquals(List.of("b-123"), a.positional());
        Args off = new Args(List.of("x", "--wait=false"));
        assertEquals(false, off.flag("wait"));
    }

    private static Path writeSeeds() {
        try {
            Path f = Files.createTempFile("sqloop-seeds", ".yaml");
            Files.writeString(f, "cases:\n  - {id: a, question: How many?, expected_sql: SELECT 1}\n");
            f.toFile().deleteOnExit();
            return f;
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }
}
