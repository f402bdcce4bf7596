package dev.sqloop.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sqloop.common.JsonCodec;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;

/** A small client of the gateway's HTTP API, for the CLI. */
public final class GatewayClient {
    private final URI base;
    private final String apiKey;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    /** From {@code --gateway}/{@code --api-key}, else {@code SQLOOP_GATEWAY_URL}/{@code SQLOOP_API_KEY}. */
    public static GatewayClient fromArgs(Args args) {
        return new GatewayClient(args.string("gateway", System.getenv().getOrDefault("SQLOOP_GATEWAY_URL", "http://127.0.0.1:8080")),
                args.string("api-key", System.getenv("SQLOOP_API_KEY")));
    }

    public GatewayClient(String base, String apiKey) {
        this.base = URI.create(base.endsWith("/") ? base : base + "/");
        this.apiKey = apiKey;
    }

    private HttpRequest.Builder request(String path) {
        HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path.startsWith("/") ? path.substring(1) : path))
                .timeout(Duration.ofMinutes(10));
        if (apiKey != null && !apiKey.isBlank()) b.header("X-API-Key", apiKey);
        return b;
    }

    public JsonNode submitBatchFile(Path jsonl) throws IOException, InterruptedException {
        HttpRequest req = request("/v1/batches").header("Content-Type", "application/x-ndjson")
                .POST(HttpRequest.BodyPublishers.ofFile(jsonl)).build();
        return expect(send(req, HttpResponse.BodyHandlers.ofString()), 202);
    }

    public JsonNode postJson(String path, String json, int... expected) throws IOException, InterruptedException {
        HttpRequest req = request(path).header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).build();
        return expect(send(req, HttpResponse.BodyHandlers.ofString()), expected);
    }

    public JsonNode delete(String path, int expected) throws IOException, InterruptedException {
        return expect(send(request(path).DELETE().build(), HttpResponse.BodyHandlers.ofString()), expected);
    }

    public JsonNode get(String path) throws IOException, InterruptedException {
        return expect(send(request(path).GET().build(), HttpResponse.BodyHandlers.ofString()), 200);
    }

    /** GET with retries while the gateway answers 503 (rebalancing) or is briefly unreachable. */
    public JsonNode getPatiently(String path, Duration patience) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + patience.toNanos();
        while (true) {
            try {
                HttpResponse<String> r = send(request(path).GET().build(), HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) return JsonCodec.mapper().readTree(r.body());
                if ((r.statusCode() != 503 && r.statusCode() != 404) || System.nanoTime() > deadline) return expect(r, 200);
            } catch (ConnectException e) {
                if (System.nanoTime() > deadline) throw e;
            }
            Thread.sleep(500);
        }
    }

    public InputStream stream(String path) throws IOException, InterruptedException {
        HttpResponse<InputStream> r = send(request(path).GET().build(), HttpResponse.BodyHandlers.ofInputStream());
        if (r.statusCode() != 200) {
            String body = new String(r.body().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            throw new Args.UsageException("gateway answered " + r.statusCode() + ": " + body);
        }
        return r.body();
    }

    private <T> HttpResponse<T> send(HttpRequest req, HttpResponse.BodyHandler<T> handler) throws IOException, InterruptedException {
        try {
            return http.send(req, handler);
        } catch (ConnectException e) {
            // the JDK's own message is often null here
            throw new ConnectException("cannot reach the gateway at " + base + " (connection refused): start one (./sqloop demo"
                    + " --serve, ./sqloop serve) or name yours with --gateway URL or SQLOOP_GATEWAY_URL");
        }
    }

    private static JsonNode expect(HttpResponse<String> r, int... expected) throws IOException {
        if (java.util.Arrays.stream(expected).noneMatch(s -> s == r.statusCode())) {
            String reason = r.body();
            try {
                JsonNode err = JsonCodec.mapper().readTree(r.body());
                reason = err.path("message").asText(r.body());
            } catch (IOException ignored) {
                // not JSON: show it as it came
            }
            throw new Args.UsageException("gateway answered " + r.statusCode() + ": " + reason);
        }
        return JsonCodec.mapper().readTree(r.body());
    }
}
