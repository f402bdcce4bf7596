package dev.sqloop.ops;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The rule files of {@code helm/sqloop/files/rules/} (plain Prometheus rule-file format). */
final class Rules {
    private Rules() {}

    static List<Path> files() throws IOException {
        return Contract.files(Repo.chart().resolve("files/rules"), "*.yaml");
    }

    static JsonNode read(Path file) throws IOException {
        return Rendered.YAML.readTree(file.toFile());
    }

    static List<JsonNode> allRules() throws IOException {
        List<JsonNode> out = new ArrayList<>();
        for (Path f : files()) for (JsonNode g : read(f).path("groups")) g.path("rules").forEach(out::add);
        return out;
    }
}
