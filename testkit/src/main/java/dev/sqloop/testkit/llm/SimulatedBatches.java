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
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * The OpenAI Batch API of the {@link SimulatedLlm}: {@code POST /v1/files} (multipart, purpose {@code batch}),
 * {@code GET /v1/files/{id}/content}, {@code POST /v1/batches}, {@code GET /v1/batches} (list),
 * {@code GET /v1/batches/{id}} and {@code POST /v1/batches/{id}/cancel}. A batch is {@code in_progress} for its
 * {@link #turnaround} and then ends as the next {@link Ending} queued says (default completed): its lines are answered by
 * the simulator's responder, with the prompt cache, exactly as online calls would be. Status is resolved when a client
 * looks, so nothing runs in the background.
 */
public final class SimulatedBatches {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** How a batch ends once its turnaround has passed. */
    public enum Ending { COMPLETE, EXPIRE, FAIL }

    /** A batch as the provider keeps it. */
    private static final class Batch {
        final String id;
        final String inputFileId;
        final Instant createdAt;
        final Map<String, String> metadata;
        final Ending ending;
        volatile String status = "in_progress";
        volatile String outputFileId;
        volatile String errorFileId;
        volatile String errors;
        volatile int total;
        volatile int completed;
        volatile int failed;

        Batch(String id, String inputFileId, Instant createdAt, Map<String, String> metadata, Ending ending) {
            this.id = id;
            this.inputFileId = inputFileId;
            this.createdAt = createdAt;
            this.metadata = metadata;
            this.ending = ending;
        }
    }

    private final Function<JsonNode, JsonNode> answer;
    private final Map<String, String> files = new ConcurrentHashMap<>();
    private final Map<String, Batch> batches = new ConcurrentHashMap<>();
    private final List<String> created = new CopyOnWriteArrayList<>();
    private final Queue<Ending> endings = new ConcurrentLinkedQueue<>();
    private final AtomicLong ids = new AtomicLong();
    private volatile Duration turnaround = Duration.ZERO;

    /** @param answer a chat completion request body → the completion the simulator answers online */
    SimulatedBatches(Function<JsonNode, JsonNode> answer) {
        this.answer = answer;
    }

    /** How long a batch stays {@code in_progress} after its creation. */
    public SimulatedBatches turnaround(Duration value) {
        turnaround = value;
        return this;
    }

    /** The next batch created ends this way (queued: one per batch, then completed again). */
    public SimulatedBatches nextEnds(Ending ending) {
        endings.add(ending);
        return this;
    }

    /** The ids of the batches created, in order: how a test tells that nothing was submitted twice. */
    public List<String> created() {
        return List.copyOf(created);
    }

    /** The request lines of every batch created so far (each a JSON object with its {@code custom_id}). */
    public List<JsonNode> submittedLines() {
        List<JsonNode> out = new ArrayList<>();
        for (String id : created) out.addAll(lines(files.getOrDefault(batches.get(id).inputFileId, "")));
        return out;
    }

    /** The status a client would see now ({@code in_progress}, {@code completed}, {@code expired}…). */
    public String status(String batchId) {
        Batch b = batches.get(batchId);
        if (b == null) return null;
        resolve(b);
        return b.status;
    }

    void handleFiles(HttpExchange ex) throws IOException {
        String path = ex.getRequestURI().getPath();
        String method = ex.getRequestMethod().toUpperCase(java.util.Locale.ROOT);
        if (method.equals("POST") && path.equals("/v1/files")) {
            String content = multipartFile(ex);
            if (content == null) {
                send(ex, 400, error("invalid_request_error", "a multipart field 'file' is required"));
                return;
            }
            String id = "file-sim-" + ids.incrementAndGet();
            files.put(id, content);
            send(ex, 200, JSON.createObjectNode().put("id", id).put("object", "file").put("bytes", content.length())
                    .put("created_at", Instant.now().getEpochSecond()).put("purpose", "batch").toString());
            return;
        }
        if (method.equals("GET") && path.startsWith("/v1/files/") && path.endsWith("/content")) {
            String id = path.substring("/v1/files/".length(), path.length() - "/content".length());
            String content = files.get(id);
            if (content == null) send(ex, 404, error("invalid_request_error", "no file " + id));
            else send(ex, 200, content);
            return;
        }
        send(ex, 404, error("invalid_request_error", "unknown path " + path));
    }

    void handleBatches(HttpExchange ex) throws IOException {
        String path = ex.getRequestURI().getPath();
        String method = ex.getRequestMethod().toUpperCase(java.util.Locale.ROOT);
        if (method.equals("POST") && path.equals("/v1/batches")) {
            JsonNode body;
            try (InputStream in = ex.getRequestBody()) {
                body = JSON.readTree(in);
            }
            String fileId = body.path("input_file_id").asText("");
            if (!files.containsKey(fileId)) {
                send(ex, 400, error("invalid_request_error", "no input file " + fileId));
                return;
            }
            Map<String, String> metadata = new java.util.LinkedHashMap<>();
            body.path("metadata").fields().forEachRemaining(e -> metadata.put(e.getKey(), e.getValue().asText()));
            Ending ending = endings.poll();
            Batch b = new Batch("batch_sim_" + ids.incrementAndGet(), fileId, Instant.now(), metadata, ending == null ? Ending.COMPLETE : ending);
            b.total = lines(files.get(fileId)).size();
            batches.put(b.id, b);
            created.add(b.id);
            send(ex, 200, json(b).toString());
            return;
        }
        if (method.equals("GET") && path.equals("/v1/batches")) {
            ObjectNode list = JSON.createObjectNode().put("object", "list");
            ArrayNode data = list.putArray("data");
            batches.values().stream().sorted(Comparator.comparing((Batch b) -> b.createdAt).reversed())
                    .forEach(b -> data.add(json(b)));
            send(ex, 200, list.toString());
            return;
        }
        String rest = path.startsWith("/v1/batches/") ? path.substring("/v1/batches/".length()) : "";
        boolean cancel = rest.endsWith("/cancel");
        Batch b = batches.get(cancel ? rest.substring(0, rest.length() - "/cancel".length()) : rest);
        if (b == null) {
            send(ex, 404, error("invalid_request_error", "no batch " + rest));
            return;
        }
        if (cancel && method.equals("POST")) {
            synchronized (b) {
                resolve(b);
                if (b.status.equals("in_progress")) b.status = "cancelled";
            }
            send(ex, 200, json(b).toString());
            return;
        }
        if (method.equals("GET")) {
            send(ex, 200, json(b).toString());
            return;
        }
        send(ex, 405, error("invalid_request_error", method + " " + path));
    }

    /** Ends a batch whose turnaround has passed, as its {@link Ending} says. */
    private void resolve(Batch b) {
        synchronized (b) {
            if (!b.status.equals("in_progress") || Instant.now().isBefore(b.createdAt.plus(turnaround))) return;
            List<JsonNode> lines = lines(files.get(b.inputFileId));
            switch (b.ending) {
                case FAIL -> {
                    b.errors = "simulated_failure: the simulated provider failed this batch";
                    b.status = "failed";
                }
                case EXPIRE -> {
                    StringBuilder err = new StringBuilder();
                    for (JsonNode line : lines) {
                        ObjectNode e = JSON.createObjectNode().put("id", "batch_req_sim_" + ids.incrementAndGet())
                                .put("custom_id", line.path("custom_id").asText());
                        e.putNull("response");
                        e.putObject("error").put("code", "batch_expired")
                                .put("message", "This request could not be executed before the completion window expired.");
                        err.append(e).append('\n');
                    }
                    b.errorFileId = store(err.toString());
                    b.failed = lines.size();
                    b.status = "expired";
                }
                case COMPLETE -> {
                    StringBuilder out = new StringBuilder();
                    for (JsonNode line : lines) {
                        ObjectNode o = JSON.createObjectNode().put("id", "batch_req_sim_" + ids.incrementAndGet())
                                .put("custom_id", line.path("custom_id").asText());
                        ObjectNode response = o.putObject("response");
                        response.put("status_code", 200).put("request_id", "req_sim_" + ids.incrementAndGet());
                        response.set("body", answer.apply(line.path("body")));
                        o.putNull("error");
                        out.append(o).append('\n');
                    }
                    b.outputFileId = store(out.toString());
                    b.completed = lines.size();
                    b.status = "completed";
                }
            }
        }
    }

    private String store(String content) {
        String id = "file-sim-" + ids.incrementAndGet();
        files.put(id, content);
        return id;
    }

    private ObjectNode json(Batch b) {
        resolve(b);
        ObjectNode n = JSON.createObjectNode();
        n.put("id", b.id).put("object", "batch").put("endpoint", "/v1/chat/completions").put("input_file_id", b.inputFileId)
                .put("completion_window", "24h").put("status", b.status).put("created_at", b.createdAt.getEpochSecond());
        if (b.outputFileId == null) n.putNull("output_file_id"); else n.put("output_file_id", b.outputFileId);
        if (b.errorFileId == null) n.putNull("error_file_id"); else n.put("error_file_id", b.errorFileId);
        if (b.errors == null) {
            n.putNull("errors");
        } else {
            ObjectNode e = n.putObject("errors").put("object", "list");
            int colon = b.errors.indexOf(':');
            e.putArray("data").addObject().put("code", b.errors.substring(0, colon)).put("message", b.errors.substring(colon + 1).strip());
        }
        n.putObject("request_counts").put("total", b.total).put("completed", b.completed).put("failed", b.failed);
        ObjectNode meta = n.putObject("metadata");
        b.metadata.forEach(meta::put);
        return n;
    }

    private static List<JsonNode> lines(String jsonl) {
        List<JsonNode> out = new ArrayList<>();
        if (jsonl == null) return out;
        for (String l : jsonl.split("\n")) {
            if (l.isBlank()) continue;
            try {
                out.add(JSON.readTree(l));
            } catch (IOException e) {
                // a line that is not JSON is not a request
            }
        }
        return out;
    }

    /** The content of the part named {@code file} of a multipart/form-data body. */
    private static String multipartFile(HttpExchange ex) throws IOException {
        String type = ex.getRequestHeaders().getFirst("Content-Type");
        if (type == null || !type.contains("boundary=")) return null;
        String boundary = "--" + type.substring(type.indexOf("boundary=") + "boundary=".length()).replace("\"", "").strip();
        String body;
        try (InputStream in = ex.getRequestBody()) {
            body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        for (String part : body.split(java.util.regex.Pattern.quote(boundary))) {
            int headerEnd = part.indexOf("\r\n\r\n");
            if (headerEnd < 0 || !part.substring(0, headerEnd).contains("name=\"file\"")) continue;
            String content = part.substring(headerEnd + 4);
            return content.endsWith("\r\n") ? content.substring(0, content.length() - 2) : content;
        }
        return null;
    }

    private static String error(String type, String message) {
        ObjectNode n = JSON.createObjectNode();
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
