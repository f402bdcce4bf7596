package dev.sqloop.embedded;

import dev.sqloop.testkit.TestDirs;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.config.EnvConfig;
import dev.sqloop.common.config.KafkaSettings;
import dev.sqloop.common.message.QuestionResult;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.common.metrics.Metrics;
import dev.sqloop.common.runtime.KafkaClients;
import dev.sqloop.common.runtime.Outcome;
import dev.sqloop.common.runtime.RunnerSettings;
import dev.sqloop.common.runtime.Stage;
import dev.sqloop.common.runtime.StageRunner;
import dev.sqloop.gateway.Gateway;
import dev.sqloop.gateway.GatewayConfig;
import dev.sqloop.testkit.EmbeddedKafka;
import dev.sqloop.testkit.Ports;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** {@code sqloop submit} in a real terminal (tmux): the progress bar is drawn, every result is written, and it resumes. */
class SubmitTerminalIT {
    private static final Pattern BAR = Pattern.compile("\\[#+-*\\]\\s+\\d+/\\d+");

    /** Stands in for the pipeline: answers each question after a short wait, so progress is visible. */
    private static final class Finisher implements Stage<QuestionTask> {
        public String name() {
            return "finisher";
        }

        public Class<QuestionTask> inputType() {
            return QuestionTask.class;
        }

        public Outcome process(QuestionTask t) throws InterruptedException {
            Thread.sleep(1500);
            return Outcome.finish(QuestionResult.succeeded(t.withSql("SELECT 1", null), Instant.now()));
        }
    }

    @Test
    void shouldDrawTheProgressBarWriteEveryResultAndResume() throws Exception {
        Terminal.ensureTmux();
        int total = 120;
        try (EmbeddedKafka broker = EmbeddedKafka.start()) {
            int port = Ports.free();
            GatewayConfig config = GatewayConfig.fromEnv(new EnvConfig(Map.of(
                    "SQLOOP_BOOTSTRAP_SERVERS", broker.bootstrapServers(), "SQLOOP_GATEWAY_PORT", Integer.toString(port),
                    "SQLOOP_DATASOURCE_DEMO_DIALECT", "duckdb", "SQLOOP_GATEWAY_STATE_DIR", TestDirs.create("gw-").toString())));
            try (Gateway gateway = Gateway.start(config, Metrics.newRegistry(), Duration.ofSeconds(90));
                 StageRunner<QuestionTask> finisher = KafkaClients.runner(new Finisher(), Topics.RETRIEVE_EXAMPLES,
                         KafkaSettings.of(broker.bootstrapServers()), RunnerSettings.defaults("finisher").withMaxInFlight(8),
                         new SimpleMeterRegistry())) {
                Path dir = TestDirs.create("submit-");
                Path input = dir.resolve("questions.jsonl");
                StringBuilder lines = new StringBuilder();
                for (int i = 0; i < total; i++) lines.append("{\"question\":\"q").append(i).append("\",\"datasource\":\"demo\"}\n");
                Files.writeString(input, lines);
                String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
                String base = java + " -cp '" + System.getProperty("java.class.path") + "' dev.sqloop.cli.Main submit " + input
                        + " --gateway http://127.0.0.1:" + gateway.port();

                // Submit without waiting: the batch id is kept beside the input for resuming.
                Path firstExit = dir.resolve("first.exit");
                try (Terminal t = Terminal.start(base + " ; echo $? > " + firstExit + " ; sleep 30")) {
                    awaitFile(firstExit, Duration.ofSeconds(120));
                    assertEquals("0", Files.readString(firstExit).trim(), t.screen());
                }
                String batchId = Files.readString(dir.resolve("questions.jsonl.sqloop-batch")).trim();
                finisher.start();

                // Run again: it resumes the same batch, draws the bar, and writes every result.
                Path out = dir.resolve("results.jsonl");
                Path exit = dir.resolve("second.exit");
                try (Terminal t = Terminal.start(base + " --out " + out + " ; echo $? > " + exit + " ; sleep 30")) {
                    boolean sawBar = false;
                    String screen = "";
                    long deadline = System.nanoTime() + Duration.ofSeconds(180).toNanos();
                    while (!Files.exists(exit) && System.nanoTime() < deadline) {
                        screen = t.screen();
                        sawBar |= BAR.matcher(screen).find();
                        Thread.sleep(200);
                    }
                    screen = t.screen();
                    assertTrue(Files.exists(exit), "submit finished: " + screen);
                    assertEquals("0", Files.readString(exit).trim(), screen);
                    assertTrue(sawBar || BAR.matcher(screen).find(), "the progress bar was drawn: " + screen);
                    assertTrue(screen.contains("resuming batch " + batchId), screen);
                    assertTrue(screen.contains(total + "/" + total), "the bar reached the end: " + screen);
                }
                List<String> results = Files.readAllLines(out).stream().filter(l -> !l.isBlank()).toList();
                assertEquals(total, results.size());
                Set<String> ids = new HashSet<>();
                for (String line : results) {
                    QuestionResult r = JsonCodec.decode(line.getBytes(), QuestionResult.class);
                    assertEquals(batchId, r.batchId());
                    ids.add(r.questionId());
                }
                assertEquals(total, ids.size(), "every question's result, once");
            }
        }
    }

    private static void awaitFile(Path file, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!Files.exists(file) && System.nanoTime() < deadline) Thread.sleep(100);
    }
}
