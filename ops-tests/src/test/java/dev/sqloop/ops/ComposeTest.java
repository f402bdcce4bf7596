package dev.sqloop.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * deploy/'s compose stack, checked without Docker: the services are there, sqloop's run the command the image
 * provides with settings the services read, and Prometheus and Grafana load the chart's one copy of the rules and
 * dashboards.
 */
class ComposeTest {
    static final List<String> SQLOOP = List.of("gateway", "fewshot", "generator", "repair", "validator", "executor");

    static Map<String, Object> compose;
    static Map<String, Object> trino;

    @BeforeAll
    static void load() throws Exception {
        // SnakeYAML resolves the anchors and merge keys (<<) the file uses for shared settings
        compose = new Yaml().load(Files.readString(deploy().resolve("compose.yaml")));
        trino = new Yaml().load(Files.readString(deploy().resolve("compose.trino.yaml")));
    }

    @Test
    void theCompleteStackIsThere() {
        Set<String> services = services(compose).keySet();
        for (String s : List.of("kafka", "qdrant", "postgres", "prometheus", "grafana")) assertTrue(services.contains(s), s);
        assertTrue(services.containsAll(SQLOOP), services.toString());
        Map<String, Object> kafka = service(compose, "kafka");
        assertEquals("broker,controller", env(kafka).get("KAFKA_PROCESS_ROLES"), "Kafka in KRaft mode");
        assertEquals(List.of("trino"), service(trino, "trino").get("profiles"));
    }

    @Test
    void eachSqloopServiceRunsItselfFromTheImageWithSettingsItReads() throws Exception {
        SqloopSettings settings = SqloopSettings.fromSources();
        Set<String> unknown = new TreeSet<>();
        for (Map<String, Object> file : List.of(compose, trino)) {
            for (var e : services(file).entrySet()) {
                if (!SQLOOP.contains(e.getKey())) continue;
                for (String name : env(e.getValue()).keySet()) {
                    if (!name.equals("JAVA_OPTS") && !settings.reads(name)) unknown.add(e.getKey() + ": " + name);
                }
            }
        }
        assertEquals(Set.of(), unknown);
        for (String s : SQLOOP) {
            Map<String, Object> svc = service(compose, s);
            assertEquals(List.of("/app/bin/sqloop", "run", s), svc.get("command"), s);
            assertEquals("${SQLOOP_IMAGE:-sqloop:local}", svc.get("image"), s);
            assertEquals("deploy/docker/Dockerfile", ((Map<?, ?>) svc.get("build")).get("dockerfile"));
            Map<String, String> env = env(svc);
            assertEquals("kafka:9092", env.get("SQLOOP_BOOTSTRAP_SERVERS"), s);
            assertEquals("postgres", env.get("SQLOOP_DATASOURCE_WAREHOUSE_DIALECT"), s);
            boolean connects = List.of("fewshot", "validator", "executor").contains(s);
            assertEquals(connects, env.containsKey("SQLOOP_DATASOURCE_WAREHOUSE_URL"), s + " datasource connection");
            assertEquals(connects, env.containsKey("SQLOOP_DATASOURCE_WAREHOUSE_PASSWORD_FILE"), s + " credentials");
            assertEquals(connects ? List.of("warehouse_password") : null, svc.get("secrets"), s + " secrets mounted");
            for (var kv : env.entrySet()) {
                if (HelmChartTest.SECRETISH.matcher(kv.getKey()).find() && !kv.getKey().endsWith("_FILE")) {
                    assertTrue(kv.getValue().startsWith("${"), s + ": " + kv.getKey() + " must come from the environment, not the file");
                }
            }
        }
        assertEquals("generate", env(service(compose, "generator")).get("SQLOOP_GENERATOR_WORKERS"));
        assertEquals("repair", env(service(compose, "repair")).get("SQLOOP_GENERATOR_WORKERS"));
        assertEquals("0.0.0.0", env(service(compose, "gateway")).get("SQLOOP_GATEWAY_HOST"));
        // the image provides the command compose and the chart run
        String dockerfile = Files.readString(deploy().resolve("docker/Dockerfile"));
        assertTrue(dockerfile.contains("COPY deploy/docker/sqloop /app/bin/sqloop"), dockerfile);
        String wrapper = Files.readString(deploy().resolve("docker/sqloop"));
        assertTrue(wrapper.contains("-cp \"/app/config:/app/lib/*\" dev.sqloop.cli.Main"), wrapper);
        assertTrue(Files.isExecutable(deploy().resolve("docker/sqloop")));
        assertTrue(Files.exists(Repo.root().resolve("cli/src/main/java/dev/sqloop/cli/Main.java")));
    }

    @Test
    void prometheusScrapesEveryServiceOnItsPortAndLoadsTheChartsRules() throws Exception {
        Map<String, Object> prom = new Yaml().load(Files.readString(deploy().resolve("prometheus/prometheus.yml")));
        Map<String, String> targets = new TreeMap<>();
        for (Object o : (List<?>) prom.get("scrape_configs")) {
            Map<?, ?> job = (Map<?, ?>) o;
            Map<?, ?> sc = (Map<?, ?>) ((List<?>) job.get("static_configs")).get(0);
            targets.put((String) job.get("job_name"), (String) ((List<?>) sc.get("targets")).get(0));
            if (SQLOOP.contains(job.get("job_name"))) assertEquals(job.get("job_name"), ((Map<?, ?>) sc.get("labels")).get("service"));
        }
        for (String s : SQLOOP) {
            Map<String, String> env = env(service(compose, s));
            String port = s.equals("gateway") ? env.get("SQLOOP_GATEWAY_PORT") : env.get("SQLOOP_MANAGEMENT_PORT");
            assertEquals(s + ":" + port, targets.get(s), "scrape target of " + s);
        }
        assertEquals(List.of("/etc/prometheus/rules/*.yaml"), prom.get("rule_files"));
        assertTrue(volumes(service(compose, "prometheus")).contains("../helm/sqloop/files/rules:/etc/prometheus/rules:ro"));
        assertTrue(volumes(service(compose, "prometheus")).contains("./prometheus/prometheus.yml:/etc/prometheus/prometheus.yml:ro"));
        Promtool.Result r = Promtool.run("check", "config", deploy().resolve("prometheus/prometheus.yml").toString());
        assertEquals(0, r.exit(), r.output());
    }

    @Test
    void grafanaIsProvisionedFromTheChartsDashboardsAndDeployHoldsNoCopy() throws Exception {
        List<String> vols = volumes(service(compose, "grafana"));
        assertTrue(vols.contains("../helm/sqloop/files/dashboards:/var/lib/grafana/dashboards/sqloop:ro"), vols.toString());
        Map<String, Object> provider = new Yaml().load(Files.readString(deploy().resolve("grafana/provisioning/dashboards/sqloop.yaml")));
        Map<?, ?> p = (Map<?, ?>) ((List<?>) provider.get("providers")).get(0);
        assertEquals("/var/lib/grafana/dashboards/sqloop", ((Map<?, ?>) p.get("options")).get("path"));
        Map<String, Object> ds = new Yaml().load(Files.readString(deploy().resolve("grafana/provisioning/datasources/prometheus.yaml")));
        Map<?, ?> d = (Map<?, ?>) ((List<?>) ds.get("datasources")).get(0);
        assertEquals("prometheus", d.get("type"));
        assertEquals(Boolean.TRUE, d.get("isDefault"), "the dashboards' ${DS_PROMETHEUS} picks the default Prometheus");
        List<Path> copies = new ArrayList<>();
        try (Stream<Path> files = Files.walk(deploy())) {
            files.filter(Files::isRegularFile).forEach(f -> {
                String n = f.getFileName().toString();
                try {
                    if (n.endsWith(".json") || ((n.endsWith(".yaml") || n.endsWith(".yml")) && Files.readString(f).contains("\ngroups:"))) copies.add(f);
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
        }
        assertEquals(List.of(), copies, "dashboards and rules are kept once, in helm/sqloop/files");
    }

    @Test
    void secretsComeFromFilesNotFromTheComposeFile() {
        Map<?, ?> secrets = (Map<?, ?>) compose.get("secrets");
        assertEquals(Set.of("postgres_password", "warehouse_password"), secrets.keySet());
        for (Object s : secrets.values()) assertTrue(Files.exists(deploy().resolve((String) ((Map<?, ?>) s).get("file"))));
        assertFalse(env(service(compose, "postgres")).containsKey("POSTGRES_PASSWORD"));
    }

    // --- helpers

    static Path deploy() {
        return Repo.root().resolve("deploy");
    }

    @SuppressWarnings("unchecked")
    static Map<String, Map<String, Object>> services(Map<String, Object> file) {
        return (Map<String, Map<String, Object>>) file.get("services");
    }

    static Map<String, Object> service(Map<String, Object> file, String name) {
        Map<String, Object> s = services(file).get(name);
        if (s == null) throw new AssertionError("no service " + name);
        return s;
    }

    static Map<String, String> env(Map<String, Object> service) {
        Map<String, String> out = new TreeMap<>();
        Object e = service.get("environment");
        if (e instanceof Map<?, ?> m) m.forEach((k, v) -> out.put(k.toString(), v == null ? "" : v.toString()));
        return out;
    }

    static List<String> volumes(Map<String, Object> service) {
        List<String> out = new ArrayList<>();
        Object v = service.get("volumes");
        if (v instanceof List<?> l) l.forEach(x -> out.add(x.toString()));
        return out;
    }
}
