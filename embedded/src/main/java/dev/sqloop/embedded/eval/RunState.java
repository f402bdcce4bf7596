package dev.sqloop.embedded.eval;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sqloop.common.JsonCodec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What an eval output directory remembers across an interrupted run and its resumption ({@code state.json}): per
 * configuration, the wall time spent and what the pipeline's own metrics counted by outcome, summed over the runs,
 * and the example memory it had ({@link EvalMemory}: what the first run saw at its start, the last at its end).
 * A configuration any run of which had no such counts (against {@code --gateway}) has none.
 */
final class RunState {
    static final String FILE = "state.json";

    private final Map<Integer, Double> seconds = new TreeMap<>();
    private final Map<Integer, Map<String, Long>> outcomes = new TreeMap<>();
    private final Set<Integer> unmeasured = new TreeSet<>();
    private final Map<Integer, EvalMemory> memory = new TreeMap<>();
    private String options;

    /**
     * Records what the run's results depend on (LLM, faults, seed, TS copies, gateway) and refuses to resume a run
     * made with other options: its scored questions would be mixed with answers of another configuration.
     */
    void options(String current, Path dir) {
        if (options != null && !options.equals(current)) {
            throw new dev.sqloop.cli.Args.UsageException(dir + " holds a run with other options (" + options + ", now " + current
                    + "): give another --out, or the same options to resume it");
        }
        options = current;
    }

    static RunState read(Path dir) throws IOException {
        RunState s = new RunState();
        Path file = dir.resolve(FILE);
        if (!Files.exists(file)) return s;
        JsonNode root = JsonCodec.mapper().readTree(file.toFile());
        if (root.hasNonNull("options")) s.options = root.get("options").asText();
        for (var it = root.path("configurations").fields(); it.hasNext(); ) {
            var e = it.next();
            int m = Integer.parseInt(e.getKey());
            s.seconds.put(m, e.getValue().path("seconds").asDouble());
            JsonNode counts = e.getValue().path("pipelineOutcomes");
            if (!counts.isObject()) {
                s.unmeasured.add(m);
                continue;
            }
            Map<String, Long> byOutcome = new TreeMap<>();
            counts.fields().forEachRemaining(c -> byOutcome.put(c.getKey(), c.getValue().asLong()));
            s.outcomes.put(m, byOutcome);
        }
        for (var it = root.path("memory").fields(); it.hasNext(); ) {
            var e = it.next();
            s.memory.put(Integer.parseInt(e.getKey()), JsonCodec.mapper().treeToValue(e.getValue(), EvalMemory.class));
        }
        return s;
    }

    /** @param counts what the pipeline counted in this run, or null when it could not be read */
    void add(int maxAttempts, double runSeconds, Map<String, Long> counts) {
        seconds.merge(maxAttempts, runSeconds, Double::sum);
        if (counts == null) {
            unmeasured.add(maxAttempts);
            outcomes.remove(maxAttempts);
        } else if (!unmeasured.contains(maxAttempts)) {
            Map<String, Long> sum = outcomes.computeIfAbsent(maxAttempts, k -> new TreeMap<>());
            counts.forEach((k, v) -> sum.merge(k, v, Long::sum));
        }
    }

    void write(Path dir) throws IOException {
        ObjectNode root = JsonCodec.mapper().createObjectNode();
        root.put("options", options);
        ObjectNode configs = root.putObject("configurations");
        for (int m : seconds.keySet()) {
            ObjectNode c = configs.putObject(Integer.toString(m));
            c.put("seconds", seconds.get(m));
            if (outcomes.containsKey(m)) c.set("pipelineOutcomes", JsonCodec.mapper().valueToTree(outcomes.get(m)));
            else c.putNull("pipelineOutcomes");
        }
        root.set("memory", JsonCodec.mapper().valueToTree(memory));
        Path tmp = dir.resolve(FILE + ".tmp");
        Files.writeString(tmp, root.toPrettyString());
        Files.move(tmp, dir.resolve(FILE), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    Map<Integer, Double> seconds() {
        return seconds;
    }

    /** The example memory each configuration had, as far as recorded. */
    Map<Integer, EvalMemory> memory() {
        return memory;
    }

    void memory(int maxAttempts, EvalMemory value) {
        memory.put(maxAttempts, value);
    }

    /** Summed counts per configuration, only where every run had them. */
    Map<Integer, Map<String, Long>> outcomes() {
        return outcomes;
    }
}
