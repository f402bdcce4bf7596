package dev.sqloop.testkit.llm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Anthropic's Message Batches on the {@link SimulatedLlm}: {@code POST /v1/messages/batches} (requests inline, each a
 * {@code custom_id} of {@code [A-Za-z0-9_-]{1,64}}, unique, and the Messages {@code params}), {@code GET} of one batch and
 * of the list, {@code POST …/cancel} and {@code GET …/results} (JSONL). A batch is {@code in_progress} for its
 * {@link #turnaround}, then {@code ended} as the next {@link SimulatedBatches.Ending} queued says: COMPLETE answers every
 * request through the simulator's responder and Anthropic prompt cache, EXPIRE leaves every one {@code expired}, FAIL
 * makes every one {@code errored}; a batch cancelled before its end has every request {@code canceled}.
 */
public final class SimulatedMessageBatches {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern CUSTOM_ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");
    private static final String ROOT = "/v1/messages/batches";

    private static final class Batch {
        final String id;
        final Instant createdAt;
        final List<JsonNode> requests;
        final SimulatedBatches.Ending ending;
        volatile String status = "in_progress";
        volatile Instant cancelAt;
        volatile Instant endedAt;
        volatile String results;
        final Map<String, Long> counts = new ConcurrentHashMap<>();

        Batch(String id, Instant createdAt, List<JsonNode> requests, SimulatedBatches.Ending ending) {
            this.id = id;
            this.createdAt = createdAt;
            this.requests = requests;
            this.ending = ending;
        }
    }

    private final Function<JsonNode, JsonNode> answer;
    private final Map<String, Batch> batches = new ConcurrentHashMap<>();
    private final List<String> created = new CopyOnWriteArrayList<>();
    private final Queue<SimulatedBatches.Ending> endings = new ConcurrentLinkedQueue<>();
    private final AtomicLong ids = new AtomicLong();
    private volatile Duration turnaround = Duration.ZERO;

    /** @param answer a Messages request body → the message the simulator answers online */
    SimulatedMessageBatches(Function<JsonNode, JsonNode> answer) {
        this.answer = answer;
    }

    /** How long a batch stays {@code in_progress} after its creation. */
    public SimulatedMessageBatches turnaround(Duration value) {
        turnaround = value;
        return this;
    }

    /** The next batch created ends this way (queued: one per batch, then COMPLETE again). */
    public SimulatedMessageBatches nextEnds(SimulatedBatches.Ending ending) {
        endings.add(ending);
        return this;
    }

    /** The ids of the batches created, in order. */
    public List<String> created() {
        return List.copyOf(created);
    }

    /** Every request of every batch created so far ({@code custom_id} and {@code params}). */
    public List<JsonNode> submittedRequests() {
        List<JsonNode> out = new ArrayList<>();
        for (String id : created) out.addAll(batches.get(id).requests);
        return out;
    }

    /** The processing status a client would see now ({@code in_progress}, {@code ended}), null for an unknown batch. */
    public String status(String batchId) {
        Batch b = batches.get(batchId);
        if (b == null) return null;
        resolve(b);
        return b.status;
    }

    /** How many of a batch's requests ended {@code type} ({@code succeeded}, {@code canceled}…) so far. */
    public long count(String batchId, String type) {
        Batch b = batches.get(batchId);
        return b == null ? 0 : b.counts.getOrDefault(type, 0L);
    }

    void handle(HttpExchange ex) throws IOException {
        String path = ex.getRequestURI().getPath();
        String method = ex.getRequestMethod().toUpperCase(java.util.Locale.ROOT);
        if (path.equals(ROOT) && method.equals("POST")) {
            create(ex);
            return;
        }
        if (path.equals(ROOT) && method.equals("GET")) {
            ObjectNode list = JSON.createObjectNode().put("has_more", false);
            ArrayNode data = list.putArray("data");
            batches.values().stream().sorted(Comparator.comparing((Batch b) -> b.createdAt).reversed()).forEach(b -> data.add(json(ex, b)));
            send(ex, 200, list.toString());
            return;
        }
        String rest = path.startsWith(ROOT + "/") ? path.substring(ROOT.length() + 1) : "";
        String[] parts = rest.split("/", 2);
        Batch b = batches.get(parts[0]);
        if (b == null) {
            send(ex, 404, error("not_found_error", "no message batch " + parts[0]));
            return;
        }
        String action = parts.length > 1 ? parts[1] : "";
        if (action.equals("cancel") && method.equals("POST")) {
            synchronized (b) {
                resolve(b);
                if (b.status.equals("in_progress")) {
                    b.status = "canceling";
                    b.cancelAt = Instant.now();
                }
            }
            send(ex, 200, json(ex, b).toString());
        } else if (action.equals("results") && method.equals("GET")) {
            resolve(b);
            if (b.results == null) send(ex, 400, error("invalid_request_error", "message batch " + b.id + " has not ended"));
            else send(ex, 200, b.results);
        } else if (action.isEmpty() && method.equals("GET")) {
            send(ex, 200, json(ex, b).toString());
        } else {
            send(ex, 405, error("invalid_request_error", method + " " + path));
        }
    }

    private void create(HttpExchange ex) throws IOException {
        JsonNode body;
        try (InputStream in = ex.getRequestBody()) {
            body = JSON.readTree(in);
        } catch (IOException e) {
            send(ex, 400, error("invalid_request_error", "request body is not JSON"));
            return;
        }
        List<JsonNode> requests = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (JsonNode r : body.path("requests")) {
            String id = r.path("custom_id").asText("");
            if (!CUSTOM_ID.matcher(id).matches()) {
                send(ex, 400, error("invalid_request_error", "requests: custom_id '" + id + "' must match ^[a-zA-Z0-9_-]{1,64}$"));
                return;
            }
            if (!seen.add(id)) {
                send(ex, 400, error("invalid_request_error", "requests: custom_id '" + id + "' is not unique"));
                return;
            }
            if (!r.path("params").isObject()) {
                send(ex, 400, error("invalid_request_error", "requests: params is required"));
                return;
            }
            requests.add(r);
        }
        if (requests.isEmpty()) {
            send(ex, 400, error("invalid_request_error", "requests: at least one request is required"));
            return;
        }
        SimulatedBatches.Ending ending = endings.poll();
        Batch b = new Batch("msgbatch_sim_" + ids.incrementAndGet(), Instant.now(), List.copyOf(requests),
                ending == null ? SimulatedBatches.Ending.COMPLETE : ending);
        batches.put(b.id, b);
        created.add(b.id);
        send(ex, 200, json(ex, b).toString());
    }

    /** Ends a batch whose turnaround has passed (or that is being cancelled) as its ending says. */
    private void resolve(Batch b) {
        synchronized (b) {
            if (b.status.equals("ended")) return;
            boolean canceling = b.status.equals("canceling");
            if (!canceling && Instant.now().isBefore(b.createdAt.plus(turnaround))) return;
            StringBuilder out = new StringBuilder();
            for (JsonNode r : b.requests) {
                ObjectNode line = JSON.createObjectNode().put("custom_id", r.path("custom_id").asText());
                ObjectNode result = line.putObject("result");
                String type = canceling ? "canceled" : switch (b.ending) {
                    case COMPLETE -> "succeeded";
                    case EXPIRE -> "expired";
                    case FAIL -> "errored";
                };
                result.put("type", type);
                if (type.equals("succeeded")) result.set("message", answer.apply(r.path("params")));
                if (type.equals("errored")) {
                    result.putObject("error").put("type", "error").putObject("error").put("type", "api_error")
                            .put("message", "the simulated provider failed this request");
                }
                b.counts.merge(type, 1L, Long::sum);
                out.append(line).append('\n');
            }
            b.results = out.toString();
            b.endedAt = Instant.now();
            b.status = "ended";
        }
    }

    private ObjectNode json(HttpExchange ex, Batch b) {
        resolve(b);
        ObjectNode n = JSON.createObjectNode();
        n.put("id", b.id).put("type", "message_batch").put("processing_status", b.status)
                .put("created_at", b.createdAt.toString()).put("expires_at", b.createdAt.plus(Duration.ofHours(24)).toString());
        ObjectNode counts = n.putObject("request_counts");
        counts.put("processing", b.status.equals("ended") ? 0 : b.requests.size());
        for (String type : List.of("succeeded", "errored", "canceled", "expired")) counts.put(type, b.counts.getOrDefault(type, 0L));
        if (b.endedAt == null) n.putNull("ended_at"); else n.put("ended_at", b.endedAt.toString());
        if (b.cancelAt == null) n.putNull("cancel_initiated_at"); else n.put("cancel_initiated_at", b.cancelAt.toString());
        if (b.results == null) {
            n.putNull("results_url");
        } else {
            n.put("results_url", "http://127.0.0.1:" + ex.getLocalAddress().getPort() + ROOT + "/" + b.id + "/results");
        }
        return n;
    }

    private static String error(String type, String message) {
        ObjectNode n = JSON.createObjectNode().put("type", "error");
        n.putObject("error").put("type", type).put("message", message);
        return n.toString();
    }

    private static void send(HttpExchange ex, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(bytes);
        }
    }
}
