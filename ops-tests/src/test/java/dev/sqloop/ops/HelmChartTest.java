package dev.sqloop.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code helm lint} and {@code helm template} of helm/sqloop (through helm-java), with assertions on the rendered objects. */
class HelmChartTest {
    static final List<String> STAGES = List.of("executor", "fewshot", "generator", "repair", "validator");
    /** What {@code sqloop run} each stage's container starts, the topic it consumes and its consumer group's stage name. */
    static final Map<String, List<String>> STAGE_TOPIC_GROUP = Map.of(
            "fewshot", List.of("retrieve-examples", "retrieve-examples"),
            "generator", List.of("generate", "generate"),
            "repair", List.of("repair-feedback", "repair"),
            "validator", List.of("static-validate", "static-validate"),
            "executor", List.of("execute", "execute"));
    static final Pattern SECRETISH = Pattern.compile("PASSWORD|SECRET|TOKEN|API_KEY|CREDENTIAL|JAAS|PRIVATE");

    static Rendered defaults;
    static Rendered full;
    static SqloopSettings settings;

    /** Every optional part on, with a datasource, secrets by reference, Qdrant (so fewshot may scale). */
    static Map<String, Object> fullSets() {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("autoscaling.keda.enabled", "true");
        s.put("metrics.serviceMonitor.enabled", "true");
        s.put("metrics.prometheusRule.enabled", "true");
        s.put("topics.create", "true");
        s.put("store.kind", "qdrant");
        s.put("store.qdrant.apiKey.existingSecret", "qdrant-key");
        s.put("llm.apiKey.existingSecret", "llm-key");
        s.put("gateway.apiKeys.existingSecret", "gateway-keys");
        s.put("datasources.dw.dialect", "trino");
        s.put("datasources.dw.url", "jdbc:trino://trino:8080/hive/sales");
        s.put("datasources.dw.user", "sqloop");
        s.put("datasources.dw.settings.ROW_LIMIT", "500");
        s.put("datasources.dw.password.existingSecret", "warehouse");
        s.put("kafka.settings.SECURITY_PROTOCOL", "SASL_SSL");
        s.put("stages.executor.replicas", "4");
        s.put("stages.executor.env.SQLOOP_MAX_IN_FLIGHT", "64");
        s.put("stages.generator.replicas", "3");
        s.put("errorPatterns", "dialects: {}");
        return s;
    }

    @BeforeAll
    static void render() {
        defaults = Rendered.of(Map.of());
        full = Rendered.of(fullSets());
        settings = SqloopSettings.fromSources();
    }

    @Test
    void helmLintPasses() {
        LintResult r = new Helm(Repo.chart()).lint().strict().call();
        assertFalse(r.isFailed(), String.join("\n", r.getMessages()));
    }

    @Test
    void oneDeploymentPerStageAndAGatewayStatefulSetWithAStateVolume() {
        for (Rendered r : List.of(defaults, full)) {
            Set<String> deployments = new TreeSet<>();
            r.ofKind("Deployment").forEach(d -> deployments.add(d.path("metadata").path("name").asText()));
            assertEquals(new TreeSet<>(STAGES.stream().map(s -> "test-sqloop-" + s).toList()), deployments);
            JsonNode gw = r.get("StatefulSet", "test-sqloop-gateway");
            assertEquals("state", gw.at("/spec/volumeClaimTemplates/0/metadata/name").asText());
            assertEquals("/var/lib/sqloop/gateway-state", env(container(gw), "SQLOOP_GATEWAY_STATE_DIR"));
            assertTrue(mounts(container(gw)).containsKey("/var/lib/sqloop/gateway-state"));
            assertEquals("0.0.0.0", env(container(gw), "SQLOOP_GATEWAY_HOST"));
            assertEquals("http://$(POD_NAME).test-sqloop-gateway-headless.sqloop.svc:8080", env(container(gw), "SQLOOP_GATEWAY_ADVERTISED_URL"));
            r.get("Service", "test-sqloop-gateway");
            assertEquals("None", r.get("Service", "test-sqloop-gateway-headless").at("/spec/clusterIP").asText());
        }
        assertTrue(defaults.ofKind("ScaledObject").isEmpty() && defaults.ofKind("ServiceMonitor").isEmpty()
                && defaults.ofKind("PrometheusRule").isEmpty() && defaults.ofKind("KafkaTopic").isEmpty()
                && defaults.ofKind("HorizontalPodAutoscaler").isEmpty(), "optional objects rendered by default");
    }

    @Test
    void eachStageRunsItsServiceWithReplicasAndEnvFromValues() {
        for (String stage : STAGES) {
            JsonNode d = full.get("Deployment", "test-sqloop-" + stage);
            JsonNode c = container(d);
            assertEquals(List.of("/app/bin/sqloop", "run", stage), texts(c.path("command")));
            assertEquals("sqloop-kafka-kafka-bootstrap:9092", env(c, "SQLOOP_BOOTSTRAP_SERVERS"));
            assertEquals("SASL_SSL", env(c, "SQLOOP_KAFKA_SECURITY_PROTOCOL"));
            assertEquals("3", env(c, "SQLOOP_MAX_ATTEMPTS"));
            assertEquals("ghcr.io/sqloop/sqloop:0.1.0", c.path("image").asText());
            JsonNode dflt = defaults.get("Deployment", "test-sqloop-" + stage);
            assertEquals(Map.of("executor", 2, "fewshot", 1, "generator", 2, "repair", 1, "validator", 2).get(stage),
                    dflt.at("/spec/replicas").asInt(), stage + " default replicas");
        }
        // with KEDA on, the ScaledObject owns replicas; without it, values do
        Rendered noKeda = Rendered.of(Map.of("stages.executor.replicas", "4", "stages.executor.env.SQLOOP_MAX_IN_FLIGHT", "64",
                "stages.executor.resources.limits.memory", "3Gi"));
        JsonNode ex = noKeda.get("Deployment", "test-sqloop-executor");
        assertEquals(4, ex.at("/spec/replicas").asInt());
        assertEquals("64", env(container(ex), "SQLOOP_MAX_IN_FLIGHT"));
        assertEquals("3Gi", container(ex).at("/resources/limits/memory").asText());
        assertFalse(full.get("Deployment", "test-sqloop-executor").path("spec").has("replicas"), "KEDA-scaled deployment sets replicas");
        assertEquals("64", env(container(full.get("Deployment", "test-sqloop-executor")), "SQLOOP_MAX_IN_FLIGHT"));
        assertEquals("generate", env(container(full.get("Deployment", "test-sqloop-generator")), "SQLOOP_GENERATOR_WORKERS"));
        assertEquals("repair", env(container(full.get("Deployment", "test-sqloop-repair")), "SQLOOP_GENERATOR_WORKERS"));
        assertEquals("https://api.openai.com/v1", env(container(full.get("Deployment", "test-sqloop-repair")), "SQLOOP_LLM_BASE_URL"));
        // the processes that embed for the example store embed with the same model
        for (String embeds : List.of("test-sqloop-fewshot", "test-sqloop-repair")) {
            assertEquals("all-minilm-l6-v2-q", env(container(full.get("Deployment", embeds)), "SQLOOP_EMBEDDING_MODEL"), embeds);
        }
        // datasources: full settings for services with connections, dialects alone for the others
        JsonNode fullCm = full.get("ConfigMap", "test-sqloop-datasources-full").path("data");
        assertEquals("jdbc:trino://trino:8080/hive/sales", fullCm.path("SQLOOP_DATASOURCE_DW_URL").asText());
        assertEquals("500", fullCm.path("SQLOOP_DATASOURCE_DW_ROW_LIMIT").asText());
        assertEquals(List.of("SQLOOP_DATASOURCE_DW_DIALECT"), fieldNames(full.get("ConfigMap", "test-sqloop-datasources-dialects").path("data")));
        for (String s : List.of("executor", "validator", "fewshot")) {
            assertEquals("test-sqloop-datasources-full", container(full.get("Deployment", "test-sqloop-" + s)).at("/envFrom/0/configMapRef/name").asText());
        }
        for (String s : List.of("generator", "repair")) {
            assertEquals("test-sqloop-datasources-dialects", container(full.get("Deployment", "test-sqloop-" + s)).at("/envFrom/0/configMapRef/name").asText());
        }
        // the error-pattern override lands on repair's classpath overlay
        assertTrue(mounts(container(full.get("Deployment", "test-sqloop-repair"))).containsKey("/app/config/dev/sqloop/generator/error-patterns.yaml"));
        assertEquals("dialects: {}\n", full.get("ConfigMap", "test-sqloop-error-patterns").at("/data/error-patterns.yaml").asText());
        // also without any datasource (the ConfigMaps' data must stay valid YAML)
        Rendered bare = Rendered.of(Map.of("errorPatterns", "dialects: {}"));
        assertEquals("dialects: {}\n", bare.get("ConfigMap", "test-sqloop-error-patterns").at("/data/error-patterns.yaml").asText());
        assertEquals(0, bare.get("ConfigMap", "test-sqloop-datasources-full").path("data").size());
    }

    @Test
    void secretsAreReferencesOnlyAndReachOnlyTheServicesThatNeedThem() {
        Map<String, Map<String, String>> refs = new TreeMap<>();
        for (JsonNode w : workloads(full)) {
            String name = w.path("metadata").path("name").asText().replace("test-sqloop-", "");
            for (JsonNode e : container(w).path("env")) {
                String var = e.path("name").asText();
                if (SECRETISH.matcher(var).find()) {
                    assertFalse(e.has("value"), name + ": " + var + " has an inline value");
                    JsonNode ref = e.at("/valueFrom/secretKeyRef");
                    assertFalse(ref.isMissingNode(), name + ": " + var + " is not a secretKeyRef: " + e);
                    refs.computeIfAbsent(name, k -> new TreeMap<>()).put(var, ref.path("name").asText() + "/" + ref.path("key").asText());
                }
            }
        }
        assertEquals(Map.of(
                "executor", Map.of("SQLOOP_DATASOURCE_DW_PASSWORD", "warehouse/password"),
                "validator", Map.of("SQLOOP_DATASOURCE_DW_PASSWORD", "warehouse/password"),
                "fewshot", Map.of("SQLOOP_DATASOURCE_DW_PASSWORD", "warehouse/password", "SQLOOP_FEWSHOT_QDRANT_API_KEY", "qdrant-key/api-key"),
                "generator", Map.of("SQLOOP_LLM_API_KEY", "llm-key/api-key"),
                "repair", Map.of("SQLOOP_LLM_API_KEY", "llm-key/api-key", "SQLOOP_FEWSHOT_QDRANT_API_KEY", "qdrant-key/api-key"),
                "gateway", Map.of("SQLOOP_GATEWAY_API_KEYS", "gateway-keys/api-keys")), refs);
        assertTrue(full.ofKind("Secret").isEmpty(), "the chart creates no Secret");
        for (JsonNode cm : full.ofKind("ConfigMap")) {
            for (String key : fieldNames(cm.path("data"))) assertFalse(SECRETISH.matcher(key).find(), "ConfigMap key " + key);
        }
    }

    @Test
    void inlineSecretsAreRefusedByTheSchema() {
        for (String key : List.of("stages.executor.env.SQLOOP_DATASOURCE_DW_PASSWORD", "env.SQLOOP_LLM_API_KEY",
                "gateway.env.SQLOOP_GATEWAY_API_KEYS", "kafka.settings.SASL_JAAS_CONFIG", "datasources.dw.settings.PASSWORD")) {
            Map<String, Object> sets = new HashMap<>(Map.of("datasources.dw.dialect", "trino", "datasources.dw.url", "jdbc:trino://t/c/s"));
            sets.put(key, "hunter2");
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> Rendered.of(sets), key);
            assertTrue(e.getMessage().contains("values don't meet the specifications of the schema"), key + ": " + e.getMessage());
        }
        // and an unknown dialect or a non-JDBC URL; every dialect sqloop has is accepted (clickhouse was once missing)
        assertThrows(IllegalStateException.class, () -> Rendered.of(Map.of("datasources.dw.dialect", "oracle", "datasources.dw.url", "jdbc:x")));
        for (dev.sqloop.common.Dialect d : dev.sqloop.common.Dialect.values()) {
            Rendered r = Rendered.of(Map.of("datasources.dw.dialect", d.wireName(), "datasources.dw.url", "jdbc:x"));
            assertEquals(d.wireName(), r.get("ConfigMap", "test-sqloop-datasources-dialects").at("/data/SQLOOP_DATASOURCE_DW_DIALECT").asText());
        }
        assertThrows(IllegalStateException.class, () -> Rendered.of(Map.of("datasources.dw.dialect", "trino", "datasources.dw.url", "http://x")));
    }

    @Test
    void probesHitHealthyAndReadyOnTheManagementPort() {
        for (JsonNode w : workloads(full)) {
            JsonNode c = container(w);
            String name = w.path("metadata").path("name").asText();
            int port = c.at("/ports/0/containerPort").asInt();
            boolean gateway = name.endsWith("-gateway");
            assertEquals(gateway ? 8080 : 9404, port, name);
            assertEquals(Integer.toString(port), env(c, gateway ? "SQLOOP_GATEWAY_PORT" : "SQLOOP_MANAGEMENT_PORT"), name);
            assertEquals("/healthy", c.at("/livenessProbe/httpGet/path").asText(), name);
            assertEquals("/healthy", c.at("/startupProbe/httpGet/path").asText(), name);
            assertEquals("/ready", c.at("/readinessProbe/httpGet/path").asText(), name);
            for (String probe : List.of("livenessProbe", "readinessProbe", "startupProbe")) {
                assertEquals(port, c.path(probe).path("httpGet").path("port").asInt(), name + " " + probe);
            }
        }
    }

    @Test
    void aScaledObjectPerStageOnItsConsumerGroupsLag() {
        assertEquals(5, full.ofKind("ScaledObject").size());
        for (String stage : STAGES) {
            JsonNode so = full.get("ScaledObject", "test-sqloop-" + stage);
            assertEquals("test-sqloop-" + stage, so.at("/spec/scaleTargetRef/name").asText());
            JsonNode t = so.at("/spec/triggers/0");
            assertEquals("kafka", t.path("type").asText());
            assertEquals(STAGE_TOPIC_GROUP.get(stage).get(0), t.at("/metadata/topic").asText(), stage);
            assertEquals("sqloop-" + STAGE_TOPIC_GROUP.get(stage).get(1), t.at("/metadata/consumerGroup").asText(), stage);
            assertEquals(6, so.at("/spec/maxReplicaCount").asInt());
            assertEquals(stage.equals("fewshot") || stage.equals("generator") ? 2 : 1, so.at("/spec/triggers").size(), stage + " triggers");
        }
        // fewshot also consumes successes for auto-capture (group <prefix>-capture)
        JsonNode capture = full.get("ScaledObject", "test-sqloop-fewshot").at("/spec/triggers/1/metadata");
        assertEquals("success", capture.path("topic").asText());
        assertEquals("sqloop-capture", capture.path("consumerGroup").asText());
        // the generator also consumes its priority lane of corrections (group <prefix>-regenerate)
        JsonNode lane = full.get("ScaledObject", "test-sqloop-generator").at("/spec/triggers/1/metadata");
        assertEquals("regenerate", lane.path("topic").asText());
        assertEquals("sqloop-regenerate", lane.path("consumerGroup").asText());
        Rendered hpa = Rendered.of(Map.of("autoscaling.hpa.enabled", "true", "store.kind", "qdrant"));
        assertEquals(5, hpa.ofKind("HorizontalPodAutoscaler").size());
        assertTrue(hpa.ofKind("ScaledObject").isEmpty());
        IllegalStateException both = assertThrows(IllegalStateException.class,
                () -> Rendered.of(Map.of("autoscaling.hpa.enabled", "true", "autoscaling.keda.enabled", "true", "store.kind", "qdrant")));
        assertTrue(both.getMessage().contains("exclude each other"), both.getMessage());
    }

    @Test
    void fewshotWithTheEmbeddedIndexRefusesMoreThanOneReplica() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Rendered.of(Map.of("stages.fewshot.replicas", "2")));
        assertTrue(e.getMessage().contains("store.kind=qdrant"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> Rendered.of(Map.of("autoscaling.keda.enabled", "true")));
        JsonNode fewshot = defaults.get("Deployment", "test-sqloop-fewshot");
        assertEquals("Recreate", fewshot.at("/spec/strategy/type").asText());
        assertTrue(mounts(container(fewshot)).containsKey("/var/lib/sqloop/fewshot-index"));
        defaults.get("PersistentVolumeClaim", "test-sqloop-fewshot-index");
    }

    @Test
    void dashboardsConfigMapCarriesTheSidecarLabelAndEveryDashboardFile() throws Exception {
        JsonNode cm = defaults.get("ConfigMap", "test-sqloop-dashboards");
        assertEquals("1", cm.at("/metadata/labels/grafana_dashboard").asText());
        List<Path> files = Contract.files(Repo.chart().resolve("files/dashboards"), "*.json");
        assertEquals(files.stream().map(p -> p.getFileName().toString()).sorted().toList(), fieldNames(cm.path("data")).stream().sorted().toList());
        for (Path f : files) assertEquals(Files.readString(f), cm.path("data").path(f.getFileName().toString()).asText(), f.toString());
    }

    @Test
    void serviceMonitorAndPrometheusRuleComeFromTheSameFiles() throws Exception {
        JsonNode sm = full.get("ServiceMonitor", "test-sqloop");
        assertEquals("app.kubernetes.io/component", sm.at("/spec/jobLabel").asText());
        assertEquals("metrics", sm.at("/spec/endpoints/0/port").asText());
        assertEquals("/metrics", sm.at("/spec/endpoints/0/path").asText());
        int monitored = 0;
        for (JsonNode svc : full.ofKind("Service")) {
            if (!"true".equals(svc.at("/metadata/labels/sqloop.dev~1metrics").asText())) continue;
            monitored++;
            boolean hasMetricsPort = false;
            for (JsonNode p : svc.at("/spec/ports")) hasMetricsPort |= p.path("name").asText().equals("metrics");
            assertTrue(hasMetricsPort, svc.at("/metadata/name").asText());
        }
        assertEquals(6, monitored, "services scraped");
        List<JsonNode> expected = new ArrayList<>();
        for (Path f : Rules.files()) Rules.read(f).path("groups").forEach(expected::add);
        List<JsonNode> got = new ArrayList<>();
        full.get("PrometheusRule", "test-sqloop").at("/spec/groups").forEach(got::add);
        assertEquals(expected, got);
    }

    @Test
    void kafkaTopicsMatchTheTopicRegistry() throws Exception {
        String topicsJava = Files.readString(Repo.root().resolve("common/src/main/java/dev/sqloop/common/topic/Topics.java"));
        Set<String> registry = new TreeSet<>();
        // the first string literal of each constant: String X = "name" as well as a typed Topic<T> X = Topic.of("name", ...)
        Matcher m = Pattern.compile("static final [\\w<>?, \\[\\]]+ [A-Z_]+\\s*=[^;\"]*\"([a-z][a-z-]*)\"").matcher(topicsJava);
        while (m.find()) registry.add(m.group(1));
        assertTrue(registry.size() >= 10, "topics found in Topics.java: " + registry);
        Set<String> rendered = new TreeSet<>();
        for (JsonNode t : full.ofKind("KafkaTopic")) {
            rendered.add(t.at("/spec/topicName").asText());
            assertEquals("sqloop-kafka", t.at("/metadata/labels/strimzi.io~1cluster").asText());
            assertTrue(t.at("/spec/partitions").asInt() >= 1);
        }
        assertEquals(registry, rendered);
        for (String compacted : List.of("results", "batches", "examples")) {
            assertEquals("compact", full.get("KafkaTopic", "test-sqloop-" + compacted).at("/spec/config/cleanup.policy").asText());
        }
        assertEquals(6, full.get("KafkaTopic", "test-sqloop-execute").at("/spec/partitions").asInt());
    }

    @Test
    void everySqloopVariableTheChartSetsIsOneAServiceReads() {
        Set<String> unknown = new TreeSet<>();
        for (Rendered r : List.of(defaults, full)) {
            for (JsonNode w : workloads(r)) {
                for (JsonNode e : container(w).path("env")) {
                    String n = e.path("name").asText();
                    if (n.startsWith("SQLOOP_") && !settings.reads(n)) unknown.add(n);
                }
            }
            for (JsonNode cm : r.ofKind("ConfigMap")) {
                for (String n : fieldNames(cm.path("data"))) if (n.startsWith("SQLOOP_") && !settings.reads(n)) unknown.add(n);
            }
        }
        assertEquals(Set.of(), unknown);
        assertFalse(settings.reads("SQLOOP_EXECUTOR_TYPO"));
        assertFalse(settings.reads("SQLOOP_DATASOURCE_DW_PASWORD"));
    }

    @Test
    void helmLintAndTemplateWithAValuesFile(@TempDir Path tmp) throws Exception {
        Path values = tmp.resolve("values.yaml");
        Files.writeString(values, """
                kafka:
                  bootstrapServers: my-cluster-kafka-bootstrap.kafka:9093
                  settings: {SECURITY_PROTOCOL: SSL}
                datasources:
                  sales_dw:
                    dialect: postgres
                    url: jdbc:postgresql://pg.db:5432/sales
                    user: sqloop_ro
                    password: {existingSecret: pg-ro, key: pw}
                stages:
                  validator: {enabled: false, replicas: 0}
                """);
        Rendered r = Rendered.of(Map.of(), values);
        assertTrue(r.find("Deployment", "test-sqloop-validator").isEmpty(), "disabled stage rendered");
        JsonNode ex = container(r.get("Deployment", "test-sqloop-executor"));
        assertEquals("my-cluster-kafka-bootstrap.kafka:9093", env(ex, "SQLOOP_BOOTSTRAP_SERVERS"));
        assertEquals("pg-ro", env(ex, "SQLOOP_DATASOURCE_SALES_DW_PASSWORD", "/valueFrom/secretKeyRef/name"));
        assertEquals("sqloop_ro", r.get("ConfigMap", "test-sqloop-datasources-full").at("/data/SQLOOP_DATASOURCE_SALES_DW_USER").asText());
    }

    // --- helpers

    static List<JsonNode> workloads(Rendered r) {
        List<JsonNode> out = new ArrayList<>(r.ofKind("Deployment"));
        out.addAll(r.ofKind("StatefulSet"));
        return out;
    }

    static JsonNode container(JsonNode workload) {
        JsonNode cs = workload.at("/spec/template/spec/containers");
        assertEquals(1, cs.size(), "containers of " + workload.at("/metadata/name"));
        return cs.get(0);
    }

    static String env(JsonNode container, String name) {
        return env(container, name, "/value");
    }

    static String env(JsonNode container, String name, String pointer) {
        for (JsonNode e : container.path("env")) if (name.equals(e.path("name").asText())) return e.at(pointer).asText();
        throw new AssertionError("no env " + name + " in container " + container.path("name"));
    }

    static Map<String, String> mounts(JsonNode container) {
        Map<String, String> out = new TreeMap<>();
        for (JsonNode m : container.path("volumeMounts")) out.put(m.path("mountPath").asText(), m.path("name").asText());
        return out;
    }

    static List<String> texts(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }

    static List<String> fieldNames(JsonNode object) {
        List<String> out = new ArrayList<>();
        object.fieldNames().forEachRemaining(out::add);
        return out;
    }
}
