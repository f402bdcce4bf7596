package dev.sqloop.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sqloop.common.JsonCodec;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A small client of the gateway's HTTP API, for the CLI. On {@link HttpURLConnection}, not {@code java.net.http}: a
 * command makes a handful of requests in a fresh JVM, and the newer client costs ~0.5 s of CPU before its first one
 * (its selector thread, and the default TLS context it builds even for http://); this one reuses connections
 * (keep-alive) as well once a body is read to its end.
 */
public final class GatewayClient {
    private static final int CONNECT_TIMEOUT_MS = (int) Duration.ofSeconds(10).toMillis();
    private static final int READ_TIMEOUT_MS = (int) Duration.ofMinutes(10).toMillis();

    static {
        // HttpURLConnection sends a POST again, once, when the connection drops before an answer: a batch would be
        // submitted twice. The commands say what failed instead, and resubmitting is the user's choice.
        if (System.getProperty("sun.net.http.retryPost") == null) System.setProperty("sun.net.http.retryPost", "false");
    }

    private final URI base;
    private final String apiKey;

    public GatewayClient(String base, String apiKey) {
        this.base = URI.create(base.endsWith("/") ? base : base + "/");
        this.apiKey = apiKey;
    }

    /** A gateway's answer whatever its status: the status and the body (JSON, or null when it was not). */
    public record Answer(int status, JsonNode body, String text) {
        /** The gateway's own reason for a refusal ({@code message}), else the body, else the status. */
        public String reason() {
            if (body != null && body.hasNonNull("message")) return body.get("message").asText();
            return text == null || text.isBlank() ? "HTTP " + status : text.strip();
        }
    }

    /** The URL this client talks to. */
    public String baseUrl() {
        return base.toString();
    }

    public JsonNode submitBatchFile(Path jsonl) throws IOException {
        return expect(exchange("POST", "/v1/batches", "application/x-ndjson", jsonl, null), 202);
    }

    public JsonNode postJson(String path, String json, int... expected) throws IOException {
        return expect(exchange("POST", path, "application/json", null, json), expected);
    }

    /** POSTs JSON and returns the answer as it came, for callers that handle refusals one by one. */
    public Answer post(String path, String json) throws IOException {
        return exchange("POST", path, "application/json", null, json);
    }

    /** GETs and returns the answer as it came (a 404 is an answer, not an error). */
    public Answer fetch(String path) throws IOException {
        return exchange("GET", path, null, null, null);
    }

    public JsonNode delete(String path, int expected) throws IOException {
        return expect(exchange("DELETE", path, null, null, null), expected);
    }

    public JsonNode get(String path) throws IOException {
        return expect(fetch(path), 200);
    }

    /** GET with retries while the gateway answers 503 (rebalancing), 404 (not in its view yet) or is briefly unreachable. */
    public JsonNode getPatiently(String path, Duration patience) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + patience.toNanos();
        while (true) {
            try {
                Answer a = fetch(path);
                if (a.status() == 200) return a.body();
                if ((a.status() != 503 && a.status() != 404) || System.nanoTime() > deadline) return expect(a, 200);
            } catch (ConnectException e) {
                if (System.nanoTime() > deadline) throw e;
            }
            Thread.sleep(500);
        }
    }

    /** The body of a GET as it streams (a batch's results), or the gateway's refusal. */
    public InputStream stream(String path) throws IOException {
        HttpURLConnection c = open("GET", path, null);
        int status = status(c);
        if (status != 200) throw new Args.UsageException("gateway answered " + status + ": " + read(c.getErrorStream()));
        return c.getInputStream();
    }

    private Answer exchange(String method, String path, String contentType, Path file, String body) throws IOException {
        HttpURLConnection c = open(method, path, contentType);
        if (file != null || body != null) {
            c.setDoOutput(true);
            byte[] bytes = body == null ? null : body.getBytes(StandardCharsets.UTF_8);
            // streamed with its length known: a batch file of any size never sits in memory whole
            c.setFixedLengthStreamingMode(file != null ? Files.size(file) : bytes.length);
            try (OutputStream out = connected(c::getOutputStream)) {
                if (file != null) Files.copy(file, out);
                else out.write(bytes);
            }
        }
        int status = status(c);
        String text = read(status >= 400 ? c.getErrorStream() : c.getInputStream());
        JsonNode json = null;
        try {
            if (text != null && !text.isBlank()) json = JsonCodec.mapper().readTree(text);
        } catch (IOException notJson) {
            // kept as text: the reason is shown as it came
        }
        return new Answer(status, json, text);
    }

    private HttpURLConnection open(String method, String path, String contentType) throws IOException {
        HttpURLConnection c = (HttpURLConnection) base.resolve(path.startsWith("/") ? path.substring(1) : path).toURL().openConnection();
        c.setRequestMethod(method);
        c.setConnectTimeout(CONNECT_TIMEOUT_MS);
        c.setReadTimeout(READ_TIMEOUT_MS);
        c.setUseCaches(false);
        if (contentType != null) c.setRequestProperty("Content-Type", contentType);
        c.setRequestProperty("Accept", "application/json");
        if (apiKey != null && !apiKey.isBlank()) c.setRequestProperty("X-API-Key", apiKey);
        return c;
    }

    private int status(HttpURLConnection c) throws IOException {
        return connected(c::getResponseCode);
    }

    private interface Io<T> {
        T get() throws IOException;
    }

    /** The step that connects, with a refused connection said as what to do about it. */
    private <T> T connected(Io<T> step) throws IOException {
        try {
            return step.get();
        } catch (ConnectException e) {
            throw new ConnectException("cannot reach the gateway at " + base + " (" + (e.getMessage() == null ? "connection refused"
                    : e.getMessage().toLowerCase(java.util.Locale.ROOT)) + "): start one (./sqloop serve, ./sqloop demo --serve) or name"
                    + " yours with --gateway URL or SQLOOP_GATEWAY_URL");
        }
    }

    private static String read(InputStream in) throws IOException {
        if (in == null) return null;
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static JsonNode expect(Answer a, int... expected) {
        if (java.util.Arrays.stream(expected).noneMatch(s -> s == a.status())) {
            throw new Args.UsageException("gateway answered " + a.status() + ": " + a.reason());
        }
        return a.body();
    }
}
