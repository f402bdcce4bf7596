package dev.sqloop.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.config.KafkaSettings;
import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.datasource.Datasources;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.error.Outcomes;
import dev.sqloop.common.message.QuestionResult;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.common.message.TokenUsage;
import dev.sqloop.common.runtime.KafkaClients;
import dev.sqloop.common.runtime.RetryPolicy;
import dev.sqloop.common.runtime.RunnerSettings;
import dev.sqloop.common.runtime.StageMetrics;
import dev.sqloop.common.runtime.StageRunner;
import dev.sqloop.testkit.EmbeddedKafka;
import dev.sqloop.testkit.Ports;
import dev.sqloop.testkit.engines.DemoWarehouse;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The execute stage inside the real runner on a real broker, against the DuckDB demo warehouse and a dead PostgreSQL. */
class ExecuteStageIT {

    @Test
    void shouldRouteResultsErrorsAndAnUnreachableWarehouse(@TempDir Path dir) throws Exception {
        Path file = DemoWarehouse.create(dir.resolve("demo.duckdb"));
        Datasources datasources = Datasources.of(
                DatasourceConfig.of("demo", Dialect.DUCKDB, "jdbc:duckdb:" + file, null, null),
                DatasourceConfig.of("down", Dialect.POSTGRES, "jdbc:postgresql://127.0.0.1:" + Ports.free() + "/x", "u", "p")
                        .withPool(1, Duration.ofMillis(500)));
        try (EmbeddedKafka broker = EmbeddedKafka.start(); ReadOnlyExecutor executor = new ReadOnlyExecutor()) {
            KafkaSettings kafka = KafkaSettings.of(broker.bootstrapServers());
            KafkaClients.ensureTopics(kafka, Topics.ALL, Duration.ofSeconds(60));
            RunnerSettings settings = RunnerSettings.defaults("sqloop-execute-it")
                    .withRetry(new RetryPolicy(2, Duration.ofMillis(100), Duration.ofMillis(300), 2.0))
                    .withShutdownTimeout(Duration.ofSeconds(10));
            try (StageRunner<QuestionTask> runner = KafkaClients.runner(new ExecuteStage(datasources, executor, StageMetrics.NONE, Clock.systemUTC()),
                    Topics.EXECUTE, kafka, settings, new SimpleMeterRegistry()).start();
                 Producer<byte[], byte[]> producer = KafkaClients.producer(kafka, "it-producer")) {
                send(producer, task("ok", "demo", "SELECT n_name FROM nation ORDER BY n_nationkey"));
                send(producer, task("bad", "demo", "SELECT n_nam FROM nation"));
                send(producer, task("write", "demo", "DROP TABLE nation"));
                send(producer, task("down", "down", "SELECT 1"));
                send(producer, task("unknown", "elsewhere", "SELECT 1"));
                producer.flush();

                QuestionTask ok = JsonCodec.decode(read(kafka, Topics.SUCCESS.name(), 1).get("ok"), QuestionTask.class);
                assertEquals(25, ok.execution().rowCount());
                assertEquals(List.of("n_name"), ok.execution().columns());
                assertEquals(List.of(), ok.execution().preview(), "capture reads the count; the rows go with the result");

                Map<String, byte[]> repairs = read(kafka, Topics.REPAIR_FEEDBACK.name(), 2);
                QuestionTask bad = JsonCodec.decode(repairs.get("bad"), QuestionTask.class);
                assertEquals(ErrorCategory.COLUMN_NOT_FOUND, bad.issues().get(0).category());
                assertTrue(bad.issues().get(0).candidates().contains("n_name"), bad.issues().toString());
                assertEquals(ErrorCategory.READ_ONLY_VIOLATION, JsonCodec.decode(repairs.get("write"), QuestionTask.class).issues().get(0).category());

                Map<String, byte[]> results = read(kafka, Topics.RESULTS.name(), 3);
                QuestionResult succeeded = JsonCodec.decode(results.get("ok"), QuestionResult.class);
                assertEquals(QuestionResult.SUCCEEDED, succeeded.status(), "a success also writes the final result");
                assertEquals(25, succeeded.execution().rowCount());
                assertEquals("ALGERIA", succeeded.execution().preview().get(0).get(0));
                QuestionResult down = JsonCodec.decode(results.get("down"), QuestionResult.class);
                assertEquals(Outcomes.WAREHOUSE_UNAVAILABLE, down.reason());
                assertEquals(ErrorCategory.CONNECTION_ERROR, down.errorCategory());
                assertEquals(Outcomes.UNKNOWN_DATASOURCE, JsonCodec.decode(results.get("unknown"), QuestionResult.class).reason());
            }
        }
    }

    private static QuestionTask task(String id, String datasource, String sql) {
        return QuestionTask.create(id, "t", datasource, "question " + id, 3, Instant.now()).withSql(sql, TokenUsage.ZERO);
    }

    private static void send(Producer<byte[], byte[]> p, QuestionTask t) {
        p.send(new ProducerRecord<>(Topics.EXECUTE.name(), t.key().getBytes(StandardCharsets.UTF_8), JsonCodec.encode(t)));
    }

    /** Reads {@code topic} from the start until {@code count} distinct keys arrived (60 s at most). */
    private static Map<String, byte[]> read(KafkaSettings kafka, String topic, int count) {
        Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "reader-" + UUID.randomUUID());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        Map<String, byte[]> byKey = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            c.subscribe(List.of(topic));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (byKey.size() < count && System.nanoTime() < deadline) {
                c.poll(Duration.ofMillis(200)).forEach(r -> byKey.put(new String(r.key(), StandardCharsets.UTF_8), r.value()));
            }
        }
        assertEquals(count, byKey.size(), topic + ": " + new ArrayList<>(byKey.keySet()));
        return byKey;
    }
}
