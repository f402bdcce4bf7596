package dev.sqloop.cli;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * {@code ./sqloop run SERVICE} ships cli's runtime classpath. The test classpath is a superset of it, so a class
 * missing here is missing from every deployed service: no embedded broker, simulated LLM, engine launcher or demo
 * warehouse. (The enforcer's bannedDependencies in cli's pom fails the build earlier; this checks the result.)
 */
class RunClasspathTest {

    @ParameterizedTest
    @ValueSource(strings = {
            "dev.sqloop.testkit.EmbeddedKafka",          // testkit's in-process broker
            "dev.sqloop.testkit.llm.SimulatedLlm",       // the simulated LLM
            "dev.sqloop.testkit.engines.DemoWarehouse",  // the demo warehouse generator
            "dev.sqloop.embedded.pipeline.EmbeddedPipeline", // the all-in-one-JVM pipeline
            "kafka.server.KafkaRaftServer",              // the Kafka broker itself
            "io.trino.tpch.TpchTable"})                  // the TPC-H generator
    void shouldNotCarryTestInfrastructure(String className) {
        assertThrows(ClassNotFoundException.class, () -> Class.forName(className, false, getClass().getClassLoader()),
                className + " is on cli's classpath, so every service started by ./sqloop run would ship it");
    }

    @ParameterizedTest
    @ValueSource(strings = {"dev.sqloop.executor.Main", "dev.sqloop.validator.Main", "dev.sqloop.generator.Main",
            "dev.sqloop.fewshot.Main", "dev.sqloop.gateway.Main", "org.apache.kafka.clients.consumer.KafkaConsumer"})
    void shouldCarryEveryService(String className) {
        assertDoesNotThrow(() -> Class.forName(className, false, getClass().getClassLoader()));
    }

    @Test
    void shouldPrintTheClasspathARunWouldUse() throws Exception {
        PrintStream original = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            Main.run(List.of("run", "executor", "--print-classpath"));
        } finally {
            System.setOut(original);
        }
        List<String> entries = out.toString(StandardCharsets.UTF_8).lines().toList();
        assertTrue(entries.size() > 10, "one classpath entry a line: " + entries);
        assertTrue(entries.stream().noneMatch(e -> e.contains("testkit") || e.contains("kafka_2.13") || e.contains("kafka-server")),
                "no test infrastructure: " + entries);
    }
}
