package dev.sqloop.ops;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The dashboards of {@code helm/sqloop/files/dashboards/} and their panels (rows' nested panels included). */
final class Dashboards {
    static final ObjectMapper JSON = new ObjectMapper();

    private Dashboards() {}

    static Map<Path, JsonNode> all() throws IOException {
        Map<Path, JsonNode> out = new LinkedHashMap<>();
        for (Path f : Contract.files(Repo.chart().resolve("files/dashboards"), "*.json")) out.put(f, JSON.readTree(f.toFile()));
        return out;
    }

    static List<JsonNode> panels(JsonNode dashboard) {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode p : dashboard.path("panels")) {
            if ("row".equals(p.path("type").asText())) p.path("panels").forEach(out::add);
            else out.add(p);
        }
        return out;
    }

    /** Every PromQL expression: panel targets and query variables. */
    static List<String> expressions(JsonNode dashboard) {
        List<String> out = new ArrayList<>();
        for (JsonNode p : panels(dashboard)) for (JsonNode t : p.path("targets")) out.add(t.path("expr").asText());
        for (JsonNode v : dashboard.path("templating").path("list")) {
            if ("query".equals(v.path("type").asText())) {
                String q = v.path("query").isObject() ? v.path("query").path("query").asText() : v.path("query").asText();
                // label_values(<selector>, label): the selector is PromQL
                out.add(q.replaceAll("^label_values\\((.*),\\s*\\w+\\)$", "$1"));
            }
        }
        return out;
    }
}
