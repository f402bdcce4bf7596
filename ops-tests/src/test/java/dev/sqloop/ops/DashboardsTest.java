package dev.sqloop.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The Grafana dashboards' structure, and every metric their PromQL (and the rules') references is in the contract. */
class DashboardsTest {
    private static final Set<String> GRAFANA_BUILTINS = Set.of("__rate_interval", "__range", "__interval", "__range_s");

    @Test
    void theFiveDashboardsExistWithUniqueUids() throws Exception {
        Map<Path, JsonNode> all = Dashboards.all();
        Set<String> files = new TreeSet<>();
        all.keySet().forEach(p -> files.add(p.getFileName().toString()));
        assertEquals(new TreeSet<>(List.of("correction-overview.json", "errors-repairs.json", "kafka.json", "latency.json",
                "llm-usage.json")), files);
        Set<String> uids = new HashSet<>();
        all.values().forEach(d -> assertTrue(uids.add(d.path("uid").asText()), "duplicate uid " + d.path("uid")));
    }

    @Test
    void everyPanelHasThePrometheusDatasourceAndAQuery() throws Exception {
        List<String> problems = new ArrayList<>();
        int panels = 0;
        for (var e : Dashboards.all().entrySet()) {
            String file = e.getKey().getFileName().toString();
            for (JsonNode p : Dashboards.panels(e.getValue())) {
                panels++;
                String where = file + " panel '" + p.path("title").asText() + "'";
                if (!"${DS_PROMETHEUS}".equals(p.path("datasource").path("uid").asText())) problems.add(where + ": datasource " + p.path("datasource"));
                if (p.path("targets").isEmpty()) problems.add(where + ": no query target");
                for (JsonNode t : p.path("targets")) {
                    if (t.path("expr").asText().isBlank()) problems.add(where + ": empty expr in " + t);
                    if (!"${DS_PROMETHEUS}".equals(t.path("datasource").path("uid").asText())) problems.add(where + ": target datasource " + t.path("datasource"));
                }
                if (!p.path("gridPos").has("w") || !p.path("gridPos").has("h")) problems.add(where + ": no gridPos");
            }
        }
        assertTrue(panels >= 40, "only " + panels + " panels");
        assertEquals(List.of(), problems);
    }

    @Test
    void datasourceInputAndTemplateVariablesArePresentAndEveryUsedVariableIsDefined() throws Exception {
        List<String> problems = new ArrayList<>();
        for (var e : Dashboards.all().entrySet()) {
            String file = e.getKey().getFileName().toString();
            JsonNode d = e.getValue();
            Set<String> vars = new HashSet<>();
            for (JsonNode v : d.path("templating").path("list")) vars.add(v.path("name").asText());
            JsonNode ds = find(d.path("templating").path("list"), "DS_PROMETHEUS");
            if (ds == null || !"datasource".equals(ds.path("type").asText()) || !"prometheus".equals(ds.path("query").asText())) {
                problems.add(file + ": no DS_PROMETHEUS datasource variable");
            }
            if (find(d.path("__inputs"), "DS_PROMETHEUS") == null) problems.add(file + ": no DS_PROMETHEUS input");
            for (String v : List.of("datasource", "dialect")) {
                JsonNode var = find(d.path("templating").path("list"), v);
                if (var == null || !"query".equals(var.path("type").asText())) problems.add(file + ": no '" + v + "' query variable");
                else if (!var.path("query").path("query").asText().contains("label_values(")) problems.add(file + ": '" + v + "' is not a label_values query");
            }
            Matcher m = Pattern.compile("\\$\\{?([A-Za-z_][A-Za-z0-9_]*)").matcher(String.join("\n", Dashboards.expressions(d)));
            while (m.find()) {
                if (!vars.contains(m.group(1)) && !GRAFANA_BUILTINS.contains(m.group(1))) problems.add(file + ": undefined variable $" + m.group(1));
            }
        }
        assertEquals(List.of(), problems);
    }

    @Test
    void correctionOverviewFiltersOnDatasourceAndDialect() throws Exception {
        JsonNode d = Dashboards.all().get(Repo.chart().resolve("files/dashboards/correction-overview.json"));
        List<String> exprs = Dashboards.expressions(d);
        long filtered = exprs.stream().filter(x -> x.contains("datasource=~\"$datasource\"") && x.contains("dialect=~\"$dialect\"")).count();
        assertTrue(filtered >= 10, "only " + filtered + " of " + exprs.size() + " expressions filter on $datasource and $dialect");
    }

    @Test
    void everyMetricInAnyDashboardOrRuleIsInTheContract() throws Exception {
        Set<String> allowed = new TreeSet<>(Contract.seriesNames());
        allowed.addAll(Contract.recordedNames());
        Set<String> unknown = new TreeSet<>();
        Set<String> used = new TreeSet<>();
        for (var e : Dashboards.all().entrySet()) {
            for (String expr : Dashboards.expressions(e.getValue())) {
                for (String name : Contract.metricNames(expr)) {
                    used.add(name);
                    if (!allowed.contains(name)) unknown.add(e.getKey().getFileName() + ": " + name + "   in   " + expr);
                }
            }
        }
        for (JsonNode rule : Rules.allRules()) {
            for (String name : Contract.metricNames(rule.path("expr").asText())) {
                used.add(name);
                if (!allowed.contains(name)) unknown.add("rule " + rule.path("record").asText(rule.path("alert").asText()) + ": " + name);
            }
        }
        assertEquals(Set.of(), unknown);
        // the headline metrics are all shown somewhere
        for (String m : List.of("sqloop_questions_total", "sqloop_attempts_sum", "sqloop_end_to_end_seconds_bucket",
                "sqloop_errors_total", "sqloop_repairs_total", "gen_ai_client_operation_duration_seconds_bucket",
                "gen_ai_client_token_usage_sum", "db_client_operation_duration_seconds_bucket",
                "kafka_consumer_fetch_manager_records_lag", "sqloop_stage_inflight", "sqloop_dlq_records_total")) {
            assertTrue(used.contains(m), m + " is on no dashboard or rule");
        }
    }

    @Test
    void theMetricNameExtractorSeesThroughLabelsFunctionsAndVariables() {
        assertEquals(Set.of("a_total", "b_bucket"), Contract.metricNames(
                "sum by (le, job) (rate(a_total{x=\"y{z}\", stage=~\"$stage\"}[$__rate_interval])) / on(job) group_left(le) histogram_quantile(0.95, b_bucket[5m] offset 1h) * $price"));
        assertEquals(Set.of("sqloop:x:rate5m", "up"), Contract.metricNames("sqloop:x:rate5m > bool 1 or absent(up{job=\"a\"}) and vector(0)"));
        assertFalse(Contract.metricNames("1e6 / 3600").contains("e6"));
    }

    private static JsonNode find(JsonNode list, String name) {
        for (JsonNode n : list) if (name.equals(n.path("name").asText())) return n;
        return null;
    }
}
