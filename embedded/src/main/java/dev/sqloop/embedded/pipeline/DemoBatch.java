package dev.sqloop.embedded.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sqloop.common.JsonCodec;
import dev.sqloop.testkit.llm.Fault;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The bundled demo batch: questions over the TPC-H demo warehouse with their gold SQL (for the simulated oracle). */
public record DemoBatch(List<Item> items) {
    /** One demo question. */
    public record Item(String id, String question, String goldSql) {}

    public static DemoBatch load() {
        List<Item> items = new ArrayList<>();
        try (InputStream in = DemoBatch.class.getResourceAsStream("/demo/questions.jsonl");
             BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                if (line.isBlank()) continue;
                JsonNode n = JsonCodec.mapper().readTree(line);
                items.add(new Item(n.get("id").asText(), n.get("question").asText(), n.get("gold_sql").asText()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new DemoBatch(List.copyOf(items));
    }

    /** The oracle's fault mix for the demo: about a third of first answers are right, the rest carry one fault each. */
    public static Map<Fault, Double> faultMix() {
        Map<Fault, Double> mix = new EnumMap<>(Fault.class);
        mix.put(Fault.NONE, 0.35);
        // the classic kinds only: issue 46's signal kinds are opt-in, so the demo's output stays what the README shows
        for (Fault f : Fault.classic()) if (f != Fault.NONE) mix.put(f, 0.65 / (Fault.classic().size() - 1));
        return mix;
    }

    public Map<String, String> goldByQuestion() {
        Map<String, String> gold = new LinkedHashMap<>();
        items.forEach(i -> gold.put(i.question(), i.goldSql()));
        return gold;
    }

    /** The batch as the gateway takes it: one JSON object per line, the demo id as client id. */
    public Path writeJsonl(Path file, String datasource) throws IOException {
        return writeJsonl(file, datasource, items.size());
    }

    /** The batch's first {@code count} questions, as {@link #writeJsonl(Path, String)} writes them. */
    public Path writeJsonl(Path file, String datasource, int count) throws IOException {
        StringBuilder b = new StringBuilder();
        for (Item i : items.subList(0, count)) {
            b.append(JsonCodec.encodeToString(Map.of("question", i.question(), "datasource", datasource, "clientId", i.id()))).append('\n');
        }
        Files.writeString(file, b);
        return file;
    }

    /** Copies a bundled resource (the seed file) to disk. */
    public static Path copyResource(String resource, Path target) throws IOException {
        try (InputStream in = DemoBatch.class.getResourceAsStream(resource)) {
            if (in == null) throw new IOException("missing resource " + resource);
            Files.copy(in, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        return target;
    }
}
