package dev.sqloop.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The rule files through promtool (check and unit tests), their annotations, and every dashboard query parsed by Prometheus. */
class RulesTest {
    @Test
    void promtoolChecksEveryRuleFile() throws Exception {
        List<Path> files = Rules.files();
        assertEquals(2, files.size(), "rule files: " + files);
        for (Path f : files) {
            Promtool.Result r = Promtool.run("check", "rules", f.toString());
            assertEquals(0, r.exit(), f + ":\n" + r.output());
            assertTrue(r.output().contains("SUCCESS"), r.output());
        }
    }

    @Test
    void theFiveAlertsExistEachWithSummaryAndRunbook() throws Exception {
        Set<String> alerts = new TreeSet<>();
        List<String> problems = new ArrayList<>();
        for (JsonNode rule : Rules.allRules()) {
            if (!rule.has("alert")) continue;
            String name = rule.get("alert").asText();
            alerts.add(name);
            for (String a : List.of("summary", "runbook", "runbook_url", "description")) {
                if (rule.path("annotations").path(a).asText().isBlank()) problems.add(name + " has no " + a);
            }
            if (rule.path("labels").path("severity").asText().isBlank()) problems.add(name + " has no severity");
        }
        assertEquals(List.of(), problems);
        assertEquals(new TreeSet<>(List.of("SqloopConsumerLagGrowing", "SqloopCorrectionEffectivenessLow", "SqloopDeadLettersGrowing",
                "SqloopLlmUnavailable", "SqloopStageNoReadyReplica")), alerts);
    }

    /** promtool test rules: each alert fires on a synthetic series history and stays quiet on a healthy one. */
    @Test
    void promtoolUnitTestsOfTheAlertsAndRecordingRulesPass(@TempDir Path tmp) throws Exception {
        String template = new String(RulesTest.class.getResourceAsStream("/rules-tests.yaml").readAllBytes());
        List<String> ruleFiles = new ArrayList<>();
        for (Path f : Rules.files()) ruleFiles.add("  - " + f.toAbsolutePath());
        Path test = tmp.resolve("rules-tests.yaml");
        Files.writeString(test, template.replace("@RULE_FILES@", String.join("\n", ruleFiles)));
        Promtool.Result r = Promtool.run("test", "rules", test.toString());
        assertEquals(0, r.exit(), r.output());
        assertTrue(r.output().contains("SUCCESS"), r.output());
    }

    /** Prometheus' own parser on every dashboard query (Grafana variables replaced by plausible values). */
    @Test
    void everyDashboardQueryParses(@TempDir Path tmp) throws Exception {
        StringBuilder rules = new StringBuilder("groups:\n  - name: dashboards\n    rules:\n");
        int n = 0;
        for (var e : Dashboards.all().entrySet()) {
            for (String expr : Dashboards.expressions(e.getValue())) {
                String promql = expr.replace("$__rate_interval", "1m").replace("$__range", "6h").replace("$__interval", "1m")
                        .replaceAll("\\$\\{?(datasource|dialect|stage)}?", ".*")
                        .replaceAll("\\$\\{?price_\\w+}?", "0.5");
                rules.append("      - record: dashboard:query").append("\n        labels: {n: \"").append(n++).append("\"}\n        expr: ")
                        .append(Dashboards.JSON.writeValueAsString(promql)).append('\n');
            }
        }
        Path f = tmp.resolve("dashboards.yaml");
        Files.writeString(f, rules);
        Promtool.Result r = Promtool.run("check", "rules", f.toString());
        assertEquals(0, r.exit(), r.output());
        assertTrue(r.output().contains(n + " rules found"), r.output());
    }
}
