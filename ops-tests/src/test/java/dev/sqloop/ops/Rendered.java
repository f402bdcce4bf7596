package dev.sqloop.ops;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.marcnuri.helm.Helm;
import com.marcnuri.helm.TemplateCommand;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The objects {@code helm template} renders from the chart, parsed with Jackson YAML. */
record Rendered(String yaml, List<JsonNode> objects) {
    static final ObjectMapper YAML = new YAMLMapper();

    static Rendered of(Map<String, Object> sets) {
        return of(sets, null);
    }

    /** {@code helm template test <chart> --set k=v... [-f valuesFile]}; the release is called "test". */
    static Rendered of(Map<String, Object> sets, Path valuesFile) {
        TemplateCommand t = new Helm(Repo.chart()).template().withName("test").withNamespace("sqloop");
        sets.forEach(t::set);
        if (valuesFile != null) t.withValuesFile(valuesFile);
        String yaml = t.call();
        return new Rendered(yaml, parse(yaml));
    }

    static List<JsonNode> parse(String yaml) {
        List<JsonNode> out = new ArrayList<>();
        try (var parser = new YAMLFactory().createParser(yaml)) {
            var it = YAML.readValues(parser, JsonNode.class);
            while (it.hasNext()) {
                JsonNode n = it.next();
                if (n != null && !n.isNull() && !n.isMissingNode()) out.add(n);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    List<JsonNode> ofKind(String kind) {
        return objects.stream().filter(o -> kind.equals(o.path("kind").asText())).toList();
    }

    Optional<JsonNode> find(String kind, String name) {
        return ofKind(kind).stream().filter(o -> name.equals(o.path("metadata").path("name").asText())).findFirst();
    }

    JsonNode get(String kind, String name) {
        return find(kind, name).orElseThrow(() -> new AssertionError("no " + kind + " " + name + " rendered; got "
                + objects.stream().map(o -> o.path("kind").asText() + "/" + o.path("metadata").path("name").asText()).toList()));
    }
}
