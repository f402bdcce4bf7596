package dev.sqloop.generator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sqloop.common.runtime.InfrastructureException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The OpenAI Batch API over {@code java.net.http}: upload a JSONL file ({@code POST /v1/files}, purpose {@code batch}),
 * create, retrieve, list and cancel batches ({@code /v1/batches}), download a file's content. Six calls do not justify
 * {@code openai-java}'s Kotlin runtime and OkHttp beside langchain4j's client. Like {@link dev.sqloop.generator.LlmClient},
 * it never retries: 429, 5xx and I/O failures are {@link InfrastructureException}, other 4xx {@link LlmRejectedException}.
 */
public final class OpenAiBatchClient implements ProviderBatchApi {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** A provider batch as retrieved: {@code status} is OpenAI's ({@code validating}, {@code in_progress}, {@code completed}…). */
    public record Status(String id, String status, String outputFileId, String errorFileId, String errors) {
        /** Whether the provider will do no more work on it. */
        public boolean ended() {
            return switch (status) {
                case "completed", "failed", "expired", "cancelled" -> true;
                default -> false;
            };
        }
    }

    private final HttpClient http;
    private final String baseUrl;
    private final String apiKey;
    private final Duration timeout;

    /** @param baseUrl as for the chat client, ending in {@code /v1} */
    public OpenAiBatchClient(String baseUrl, String apiKey, Duration timeout) {
        this.baseUrl = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
        this.apiKey = apiKey;
        this.timeout = timeout;
        this.http = HttpClient.newBuilder().connectTimeout(timeout).build();
    }

    /** Uploads {@code jsonl} as a batch input file; answers its file id. */
    public String upload(String filename, String jsonl) {
        String boundary = "sqloop-" + UUID.randomUUID();
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        write(body, "--" + boundary + "\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\nbatch\r\n");
        write(body, "--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"" + filename
                + "\"\r\nContent-Type: application/jsonl\r\n\r\n");
        write(body, jsonl);
        write(body, "\r\n--" + boundary + "--\r\n");
        HttpRequest request = request("/files").header("Content-Type", "multipart/form-data; boundary=" + boundary)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body.toByteArray())).build();
        return json(send(request, "upload of " + filename)).path("id").asText();
    }

    public Status create(String inputFileId, Map<String, String> metadata) {
        ObjectNode body = JSON.createObjectNode();
        body.put("input_file_id", inputFileId);
        body.put("endpoint", "/v1/chat/completions");
        body.put("completion_window", "24h");
        ObjectNode meta = body.putObject("metadata");
        metadata.forEach(meta::put);
        HttpRequest request = request("/batches").header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build();
        return status(json(send(request, "batch creation")));
    }

    public Status retrieve(String batchId) {
        return status(json(send(request("/batches/" + batchId).GET().build(), "batch " + batchId)));
    }

    public Status cancel(String batchId) {
        return status(json(send(request("/batches/" + batchId + "/cancel").POST(HttpRequest.BodyPublishers.noBody()).build(),
                "cancel of batch " + batchId)));
    }

    /** The newest of the provider's last 100 batches whose metadata has {@code key=value}, if any. */
    public Optional<Status> findByMetadata(String key, String value) {
        JsonNode list = json(send(request("/batches?limit=100").GET().build(), "batch list"));
        for (JsonNode b : list.path("data")) {
            if (value.equals(b.path("metadata").path(key).asText(null))) return Optional.of(status(b));
        }
        return Optional.empty();
    }

    @Override
    public Optional<String> submittedAs(String windowId) {
        return findByMetadata(ProviderBatch.WINDOW_METADATA, windowId).map(Status::id);
    }

    @Override
    public Submission submit(String windowId, java.util.List<Request> requests, BatchLines.RequestSettings settings) {
        java.util.List<String> lines = requests.stream().map(r -> BatchLines.requestLine(r.customId(), r.prompt(), settings)).toList();
        String fileId = upload(windowId + ".jsonl", BatchLines.jsonl(lines));
        return new Submission(create(fileId, Map.of(ProviderBatch.WINDOW_METADATA, windowId)).id(), fileId);
    }

    @Override
    public State state(String batchId) {
        Status s = retrieve(batchId);
        // the error file first: an output line for the same request, should there be both, wins
        java.util.List<String> files = new java.util.ArrayList<>();
        if (s.errorFileId() != null) files.add(s.errorFileId());
        if (s.outputFileId() != null) files.add(s.outputFileId());
        return new State(s.id(), s.status(), s.ended(), s.errors(), files);
    }

    @Override
    public Map<String, BatchLines.LineResult> results(State ended) {
        Map<String, BatchLines.LineResult> lines = new java.util.HashMap<>();
        for (String file : ended.results()) lines.putAll(BatchLines.parse(content(file)));
        return lines;
    }

    @Override
    public void stop(String batchId) {
        cancel(batchId);
    }

    public String content(String fileId) {
        return send(request("/files/" + fileId + "/content").GET().build(), "file " + fileId);
    }

    private HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(URI.create(baseUrl + path)).timeout(timeout).header("Authorization", "Bearer " + apiKey);
    }

    private String send(HttpRequest request, String what) {
        HttpResponse<String> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new InfrastructureException("LLM batch API unreachable (" + what + "): " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InfrastructureException("interrupted during " + what, e);
        }
        int code = response.statusCode();
        if (code / 100 == 2) return response.body();
        String message = "LLM batch API answered HTTP " + code + " to the " + what + ": " + clip(response.body());
        if (code == 408 || code == 429 || code >= 500) {
            Duration retryAfter = response.headers().firstValue("Retry-After").map(OpenAiBatchClient::seconds).orElse(null);
            throw new InfrastructureException(message, null, retryAfter);
        }
        throw new LlmRejectedException(code, message, null);
    }

    private static Duration seconds(String value) {
        try {
            return Duration.ofSeconds(Long.parseLong(value.strip()));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static Status status(JsonNode b) {
        JsonNode errors = b.path("errors").path("data");
        StringBuilder e = new StringBuilder();
        for (JsonNode err : errors) {
            if (!e.isEmpty()) e.append("; ");
            e.append(err.path("code").asText("error")).append(": ").append(err.path("message").asText(""));
        }
        return new Status(b.path("id").asText(), b.path("status").asText(""), text(b.path("output_file_id")),
                text(b.path("error_file_id")), e.isEmpty() ? null : e.toString());
    }

    private static String text(JsonNode n) {
        return n.isTextual() && !n.asText().isEmpty() ? n.asText() : null;
    }

    private static JsonNode json(String body) {
        try {
            return JSON.readTree(body);
        } catch (IOException e) {
            throw new InfrastructureException("LLM batch API answered something that is not JSON: " + clip(body), e);
        }
    }

    private static String clip(String s) {
        return s == null ? "" : s.length() > 300 ? s.substring(0, 300) + "…" : s;
    }

    private static void write(ByteArrayOutputStream out, String s) {
        out.writeBytes(s.getBytes(StandardCharsets.UTF_8));
    }
}
