package dev.sqloop.validator;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sqloop.common.Dialect;
import dev.sqloop.common.JsonCodec;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.params.provider.Arguments;

/** Reads the JSON-lines SQL corpora under test resources: one {dialects, sql, why} object per line. */
public final class Corpus {
    public record Case(Dialect dialect, String sql, String why) {}

    private Corpus() {}

    public static List<Case> load(String resource) {
        List<Case> out = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(
                Objects.requireNonNull(Corpus.class.getResourceAsStream("/" + resource), resource), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                if (line.isBlank()) continue;
                JsonNode n = JsonCodec.mapper().readTree(line);
                String why = n.has("why") ? n.get("why").asText() : "";
                for (JsonNode d : n.get("dialects")) out.add(new Case(Dialect.fromWire(d.asText()), n.get("sql").asText(), why));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    public static List<Arguments> arguments(String resource) {
        return load(resource).stream().map(c -> Arguments.of(c.dialect(), c.sql(), c.why())).toList();
    }
}
