package dev.sqloop.embedded.eval;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sqloop.cli.GatewayClient;
import dev.sqloop.common.JsonCodec;
import dev.sqloop.testkit.engines.DefogDatasets;
import dev.sqloop.testkit.engines.HiveServer;
import dev.sqloop.testkit.engines.PostgresServer;
import dev.sqloop.testkit.engines.SparkThriftServer;
import dev.sqloop.testkit.engines.TrinoServer;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What the fault-corpus ITs share: defog's broker database as one datasource on each of the five engines, and a batch
 * through a running gateway (submitted, waited for, its results read back).
 */
final class BatchRuns {
    private BatchRuns() {}

    /** The datasource names in print order (duck, pg, trino, spark, hive) with their dialects. */
    static Map<String, String> engines() {
        Map<String, String> engines = new LinkedHashMap<>();
        engines.put("duck", "duckdb");
        engines.put("pg", "postgres");
        engines.put("trino", "trino");
        engines.put("spark", "sparksql");
        engines.put("hive", "hive");
        return engines;
    }

    /**
     * Loads defog's broker database on DuckDB (a file under {@code work}), the run's PostgreSQL, Trino, Spark Thrift
     * Server and Hive, and returns the {@code SQLOOP_DATASOURCE_*} settings of the five datasources of {@link #engines()}.
     */
    static Map<String, String> brokerOnEveryEngine(Path work) throws Exception {
        Map<String, String> settings = new LinkedHashMap<>();
        datasource(settings, "duck", "duckdb", "jdbc:duckdb:" + DefogDatasets.loadIntoDuckDb("broker", work.resolve("broker.duckdb")).toAbsolutePath(), null, null);
        PostgresServer pg = PostgresServer.shared();
        DefogDatasets.loadIntoPostgres(pg, "broker");
        datasource(settings, "pg", "postgres", pg.jdbcUrl("broker"), PostgresServer.READER, PostgresServer.READER_PASSWORD);
        TrinoServer trino = TrinoServer.shared();
        DefogDatasets.loadIntoTrino(trino);
        datasource(settings, "trino", "trino", trino.jdbcUrl("memory", "broker"), "sqloop", null);
        SparkThriftServer spark = SparkThriftServer.shared();
        try (Connection admin = spark.connect("default")) {
            DefogDatasets.loadIntoHiveServer2(admin, "broker", spark.dataDir());
        }
        datasource(settings, "spark", "sparksql", spark.jdbcUrl("broker"), SparkThriftServer.USER, null);
        HiveServer hive = HiveServer.shared();
        try (Connection admin = DriverManager.getConnection(hive.jdbcUrl("default"), "sqloop", "")) {
            DefogDatasets.loadIntoHiveServer2(admin, "broker", hive.dataDir());
        }
        datasource(settings, "hive", "hive", hive.jdbcUrl("broker"), "sqloop", null);
        // Hive compiles these in a second, but a loaded local MapReduce job (a grouped, ordered or joined gold) can
        // take a minute
        settings.put("SQLOOP_DATASOURCE_HIVE_TIMEOUT", "300s");
        return settings;
    }

    private static void datasource(Map<String, String> settings, String name, String dialect, String url, String user, String password) {
        String key = "SQLOOP_DATASOURCE_" + name.toUpperCase(Locale.ROOT);
        settings.put(key + "_DIALECT", dialect);
        settings.put(key + "_URL", url);
        if (user != null) settings.put(key + "_USER", user);
        if (password != null) settings.put(key + "_PASSWORD", password);
    }

    /** Writes {@code jsonl} to {@code file}, submits it, waits until the batch is done and returns its result lines. */
    static List<JsonNode> submitAndCollect(GatewayClient client, Path file, CharSequence jsonl, Duration timeout) throws Exception {
        String batch = client.submitBatchFile(Files.writeString(file, jsonl)).get("batchId").asText();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!client.getPatiently("/v1/batches/" + batch, Duration.ofMinutes(1)).path("done").asBoolean()) {
            assertTrue(System.nanoTime() < deadline, "the batch ends within " + timeout);
            Thread.sleep(1000);
        }
        List<JsonNode> results = new ArrayList<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(client.stream("/v1/batches/" + batch + "/results"), StandardCharsets.UTF_8))) {
            for (String line; (line = in.readLine()) != null; ) {
                if (!line.isBlank()) results.add(JsonCodec.mapper().readTree(line));
            }
        }
        return results;
    }
}
