package dev.sqloop.testkit.llm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A simulated LLM behind a real HTTP server on a free loopback port, speaking the OpenAI chat-completions API
 * ({@code POST /v1/chat/completions}), Anthropic's Messages API ({@code POST /v1/messages}, with its prompt-cache
 * breakpoints) and Ollama's ({@code POST /api/chat}), so the generator is always tested
 * through its real langchain4j client. A {@link Responder} decides the answers ({@link ScriptedResponder},
 * {@link OracleResponder}); {@link Faults} injects latency, 429 with Retry-After, 5xx, slow and malformed
 * responses. Every request is recorded so tests can assert on the prompts.
 */
public final class SimulatedLlm implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SimulatedLlm.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpServer server;
    private final Responder responder;
    private final Faults faults = new Faults();
    private final PromptCache promptCache = new PromptCache();
    private final List<RecordedRequest> requests = new CopyOnWriteArrayList<>();
    private final Random random;
    private final AtomicLong ids = new AtomicLong();
    private final java.util.concurrent.atomic.LongAdder calls = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder drawnLatencyNanos = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder handlingNanos = new java.util.concurrent.atomic.LongAdder();
    private volatile boolean recording = true;
    private final SimulatedBatches batches;
    private final SimulatedMessageBatches messageBatches;

    private final java.util.concurrent.ExecutorService handlers;

    private SimulatedLlm(Responder responder, long seed, int port) throws IOException {
        this.responder = responder;
        this.random = new Random(seed);
        // TCP_NODELAY on the JDK server's sockets (read when its first server starts): it writes a response's headers
        // and body as two segments, and with Nagle's algorithm the body waited for the client's delayed ACK, up to
        // 40 ms per call (15 ms of the 44 ms a call held an LLM slot beyond its latency in the pipeline bench)
        if (System.getProperty("sun.net.httpserver.nodelay") == null) System.setProperty("sun.net.httpserver.nodelay", "true");
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
        server.createContext("/v1/chat/completions", ex -> handle(ex, "openai"));
        server.createContext("/api/chat", ex -> handle(ex, "ollama"));
        server.createContext("/v1/messages", ex -> handle(ex, "anthropic"));
        this.batches = new SimulatedBatches(this::batchAnswer);
        server.createContext("/v1/files", ex -> {
            try (ex) {
                batches.handleFiles(ex);
            }
        });
        // the longest matching context wins: /v1/messages/batches is not taken for an online /v1/messages call
        this.messageBatches = new SimulatedMessageBatches(this::messageBatchAnswer);
        server.createContext("/v1/messages/batches", ex -> {
            try (ex) {
                messageBatches.handle(ex);
            }
        });
        server.createContext("/v1/batches", ex -> {
            try (ex) {
                batches.handleBatches(ex);
            }
        });
        // Platform threads, not virtual ones: the simulator stands in for a remote server, so its handlers must not
        // wait for a carrier behind the pipeline's own virtual threads when they share a JVM (with virtual threads a
        // handler took 26 ms per call beyond its drawn latency at 16 calls at once, half the bench's gap to the limit).
        this.handlers = Executors.newCachedThreadPool(Thread.ofPlatform().name("simulated-llm-", 0).daemon(true).factory());
        server.setExecutor(handlers);
        server.start();
    }

    public static SimulatedLlm start(Responder responder) {
        return start(responder, 42);
    }

    public static SimulatedLlm start(Responder responder, long seed) {
        return start(responder, seed, 0);
    }

    /** On a given loopback port (0: any free one). */
    public static SimulatedLlm start(Responder responder, long seed, int port) {
        try {
            return new SimulatedLlm(responder, seed, port);
        } catch (IOException e) {
            throw new IllegalStateException("cannot start the simulated LLM on port " + port, e);
        }
    }

    /**
     * Runs the simulator standalone for the demo and benchmarks:
     * {@code scripted <script.json> [port]} or {@code oracle <questions.csv> <dialect> [port] [lognormal-median-ms]}.
     */
    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: SimulatedLlm scripted <script.json> [port] | oracle <questions.csv> <dialect> [port] [median-ms]");
            System.exit(2);
        }
        Responder responder;
        int portArg;
        if (args[0].equals("scripted")) {
            responder = ScriptedResponder.fromFile(java.nio.file.Path.of(args[1]));
            portArg = 2;
        } else {
            if (args.length < 3) throw new IllegalArgumentException("oracle needs <questions.csv> <dialect>");
            java.util.Map<String, String> gold = GoldSql.byQuestion(GoldSql.fromDefogCsv(java.nio.file.Path.of(args[1])));
            responder = new OracleResponder(gold, OracleResponder.uniformMix(), args[2], 42);
            portArg = 3;
        }
        int port = args.length > portArg ? Integer.parseInt(args[portArg]) : 0;
        SimulatedLlm llm = start(responder, 42, port);
        if (args.length > portArg + 1) llm.faults().latency(Latency.lognormal(Duration.ofMillis(Long.parseLong(args[portArg + 1])), 0.5));
        System.out.println("simulated LLM at " + llm.openAiBaseUrl() + " (OpenAI) and " + llm.ollamaBaseUrl() + " (Ollama)");
        Runtime.getRuntime().addShutdownHook(new Thread(llm::close));
        Thread.currentThread().join();
    }

    public int port() {
        return server.getAddress().getPort();
    }

    /** Base URL for OpenAI-compatible clients (langchain4j's {@code baseUrl}). */
    public String openAiBaseUrl() {
        return "http://127.0.0.1:" + port() + "/v1";
    }

    /** Base URL for Anthropic Messages clients (the generator's {@code SQLOOP_LLM_BASE_URL} with provider anthropic). */
    public String anthropicBaseUrl() {
        return openAiBaseUrl();
    }

    /** Base URL for Ollama clients. */
    public String ollamaBaseUrl() {
        return "http://127.0.0.1:" + port();
    }

    /** The OpenAI Batch API ({@code /v1/files}, {@code /v1/batches}): its turnaround, its endings, what was submitted. */
    public SimulatedBatches batches() {
        return batches;
    }

    /**
     * One line of a provider batch, answered as an online call would be (responder, prompt cache, recorded request) but
     * without the online faults: a batch's failures are its {@link SimulatedBatches.Ending}.
     */
    private JsonNode batchAnswer(JsonNode body) {
        ChatCall call = parse("openai", body);
        calls.increment();
        String answer = responder.respond(call);
        record(new RecordedRequest(call, 200, answer, Instant.now()));
        try {
            return JSON.readTree(openAiReply(call, answer));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Anthropic's Message Batches ({@code /v1/messages/batches}): their turnaround, their endings, what was submitted. */
    public SimulatedMessageBatches messageBatches() {
        return messageBatches;
    }

    /** One request of a message batch, answered as an online Messages call would be (responder, breakpoint cache), without faults. */
    private JsonNode messageBatchAnswer(JsonNode params) {
        ChatCall call = parseAnthropic(params);
        calls.increment();
        String answer = responder.respond(call);
        record(new RecordedRequest(call, 200, answer, Instant.now()));
        try {
            return JSON.readTree(anthropicReply(call, params, answer));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    public Faults faults() {
        return faults;
    }

    /** The prompt cache behind the OpenAI API's {@code usage.prompt_tokens_details.cached_tokens}. */
    public PromptCache promptCache() {
        return promptCache;
    }

    public List<RecordedRequest> requests() {
        return List.copyOf(requests);
    }

    /** Requests whose user message mentions {@code text} (a question, say). */
    public List<RecordedRequest> requestsMentioning(String text) {
        String t = Questions.squash(text);
        return requests.stream().filter(r -> Questions.squash(r.user()).contains(t)).toList();
    }

    public void clearRequests() {
        requests.clear();
    }

    /**
     * Whether requests are kept for {@link #requests()} (default on). Benchmarks turn it off: a million kept requests
     * would be the biggest object in the heap, and the list copies itself on every add.
     */
    public SimulatedLlm recording(boolean on) {
        recording = on;
        return this;
    }

    /**
     * Calls answered or failed so far, the latency the simulator imposed on them (its service time), and the time its
     * handler spent on each, from the request's arrival to the answer's last byte (the latency plus the simulator's own
     * work and waits for a CPU).
     */
    public record Stats(long calls, Duration meanLatency, Duration meanHandling) {}

    public Stats stats() {
        long n = calls.sum();
        return n == 0 ? new Stats(0, Duration.ZERO, Duration.ZERO)
                : new Stats(n, Duration.ofNanos(drawnLatencyNanos.sum() / n), Duration.ofNanos(handlingNanos.sum() / n));
    }

    private void record(RecordedRequest r) {
        if (recording) requests.add(r);
    }

    private void handle(HttpExchange ex, String api) throws IOException {
        long arrived = System.nanoTime();
        boolean counted = false;
        try (ex) {
            if (!"POST".equalsIgnoreCase(ex.getRequestMethod())) {
                send(ex, 405, "{\"error\":{\"message\":\"POST only\"}}", null);
                return;
            }
            JsonNode body;
            try (InputStream in = ex.getRequestBody()) {
                body = JSON.readTree(in);
            } catch (IOException e) {
                send(ex, 400, "{\"error\":{\"message\":\"request body is not JSON\"}}", null);
                return;
            }
            ChatCall call = parse(api, body);
            Faults.Fault fault;
            Duration latency;
            synchronized (random) {
                fault = faults.take(random);
                latency = faults.latency(random);
            }
            calls.increment();
            counted = true;
            drawnLatencyNanos.add(latency.toNanos());
            sleep(latency);
            if (fault instanceof Faults.Status s) {
                record(new RecordedRequest(call, s.code(), null, Instant.now()));
                String type = s.code() == 429 ? (api.equals("anthropic") ? "rate_limit_error" : "rate_limit_exceeded")
                        : (api.equals("anthropic") ? "api_error" : "server_error");
                String envelope = api.equals("anthropic") ? "\"type\":\"error\"," : "";
                send(ex, s.code(), "{" + envelope + "\"error\":{\"message\":\"simulated " + s.code() + "\",\"type\":\"" + type + "\"}}", s.retryAfter());
                return;
            }
            if (fault instanceof Faults.Slow slow) sleep(slow.delay());
            String answer = responder.respond(call);
            record(new RecordedRequest(call, 200, answer, Instant.now()));
            if (fault instanceof Faults.Malformed) {
                send(ex, 200, "{\"id\":\"chatcmpl-sim\",\"choices\":[{\"message\":{\"content\":", null);
                return;
            }
            send(ex, 200, switch (api) {
                case "ollama" -> ollamaReply(call, answer);
                case "anthropic" -> anthropicReply(call, body, answer);
                default -> openAiReply(call, answer);
            }, null);
        } catch (IOException e) {
            log.debug("simulated LLM: client went away: {}", e.toString()); // the client timed out a slow answer
        } catch (RuntimeException e) {
            log.warn("simulated LLM failed on a request", e);
            try {
                send(ex, 500, "{\"error\":{\"message\":\"simulator failure\"}}", null);
            } catch (IOException ignored) {
                // nothing more to do
            }
        } finally {
            if (counted) handlingNanos.add(System.nanoTime() - arrived);
        }
    }

    private static ChatCall parse(String api, JsonNode body) {
        if (api.equals("anthropic")) return parseAnthropic(body);
        StringBuilder system = new StringBuilder();
        StringBuilder user = new StringBuilder();
        String lastUser = "";
        for (JsonNode m : body.path("messages")) {
            String role = m.path("role").asText("");
            String content = text(m.path("content"));
            if (role.equals("user")) lastUser = content;
            StringBuilder target = role.equals("system") ? system : role.equals("user") ? user : null;
            if (target == null) continue;
            if (!target.isEmpty()) target.append('\n');
            target.append(content);
        }
        boolean json;
        if (api.equals("ollama")) {
            JsonNode format = body.path("format");
            json = !format.isMissingNode() && !format.isNull() && !format.asText("x").isEmpty();
        } else {
            String type = body.path("response_format").path("type").asText("text");
            json = type.startsWith("json");
        }
        return new ChatCall(api, body.path("model").asText(""), system.toString(), user.toString(), json, lastUser);
    }

    /**
     * A Messages request: {@code system} is a string or text blocks (joined as they are, so the responder sees the same
     * system text an OpenAI request would carry), then the user turns. Anthropic has no JSON mode: the prompt asks.
     */
    private static ChatCall parseAnthropic(JsonNode body) {
        String system = text(body.path("system"));
        StringBuilder user = new StringBuilder();
        String lastUser = "";
        for (JsonNode m : body.path("messages")) {
            if (!m.path("role").asText("").equals("user")) continue;
            String content = text(m.path("content"));
            lastUser = content;
            if (!user.isEmpty()) user.append('\n');
            user.append(content);
        }
        boolean json = system.contains("{\"sql\"");
        return new ChatCall("anthropic", body.path("model").asText(""), system, user.toString(), json, lastUser);
    }

    /** The prompt's text up to each block marked {@code cache_control} (system blocks, then user turns), shortest first. */
    static List<String> breakpoints(JsonNode body) {
        List<String> out = new java.util.ArrayList<>();
        StringBuilder upTo = new StringBuilder();
        JsonNode system = body.path("system");
        if (system.isTextual()) upTo.append(system.asText());
        for (JsonNode block : system.isArray() ? system : JSON.createArrayNode()) {
            upTo.append(block.path("text").asText(""));
            if (block.path("cache_control").isObject()) out.add(upTo.toString());
        }
        for (JsonNode m : body.path("messages")) {
            JsonNode content = m.path("content");
            if (content.isTextual()) {
                upTo.append(content.asText());
                continue;
            }
            for (JsonNode block : content) {
                upTo.append(block.path("text").asText(""));
                if (block.path("cache_control").isObject()) out.add(upTo.toString());
            }
        }
        return out;
    }

    /** Content is a string, or (OpenAI) an array of parts whose text parts are concatenated. */
    private static String text(JsonNode content) {
        if (content.isTextual()) return content.asText();
        if (content.isArray()) {
            StringBuilder sb = new StringBuilder();
            for (JsonNode part : content) if (part.has("text")) sb.append(part.get("text").asText());
            return sb.toString();
        }
        return "";
    }

    private String openAiReply(ChatCall call, String answer) throws IOException {
        ObjectNode r = JSON.createObjectNode();
        r.put("id", "chatcmpl-sim-" + ids.incrementAndGet());
        r.put("object", "chat.completion");
        r.put("created", Instant.now().getEpochSecond());
        r.put("model", call.model());
        ObjectNode choice = r.putArray("choices").addObject();
        choice.put("index", 0);
        choice.putObject("message").put("role", "assistant").put("content", answer);
        choice.put("finish_reason", "stop");
        int in = tokens(call.system()) + tokens(call.user());
        int out = tokens(answer);
        ObjectNode usage = r.putObject("usage").put("prompt_tokens", in).put("completion_tokens", out).put("total_tokens", in + out);
        // as OpenAI reports it: the part of the prompt served from its cache, present (0) on every answer
        usage.putObject("prompt_tokens_details").put("cached_tokens", promptCache.admit(call.model(), call.system(), call.user()));
        return JSON.writeValueAsString(r);
    }

    /**
     * A Messages answer with Anthropic's usage: {@code input_tokens} are only the tokens after the cached part, the
     * cached prefix being {@code cache_read_input_tokens} and a newly cached one {@code cache_creation_input_tokens}.
     */
    private String anthropicReply(ChatCall call, JsonNode body, String answer) throws IOException {
        ObjectNode r = JSON.createObjectNode();
        r.put("id", "msg_sim_" + ids.incrementAndGet());
        r.put("type", "message");
        r.put("role", "assistant");
        r.put("model", call.model());
        r.putArray("content").addObject().put("type", "text").put("text", answer);
        r.put("stop_reason", "end_turn");
        r.putNull("stop_sequence");
        int in = tokens(call.system()) + tokens(call.user());
        PromptCache.Breakpoints cache = promptCache.admitBreakpoints(call.model(), breakpoints(body), in);
        r.putObject("usage").put("input_tokens", in - cache.read() - cache.written())
                .put("cache_creation_input_tokens", cache.written()).put("cache_read_input_tokens", cache.read())
                .put("output_tokens", tokens(answer));
        return JSON.writeValueAsString(r);
    }

    private String ollamaReply(ChatCall call, String answer) throws IOException {
        ObjectNode r = JSON.createObjectNode();
        r.put("model", call.model());
        r.put("created_at", Instant.now().toString());
        r.putObject("message").put("role", "assistant").put("content", answer);
        r.put("done", true);
        r.put("done_reason", "stop");
        r.put("prompt_eval_count", tokens(call.system()) + tokens(call.user()));
        r.put("eval_count", tokens(answer));
        return JSON.writeValueAsString(r);
    }

    /** A rough token count (words and symbols), enough for usage accounting in tests. */
    static int tokens(String s) {
        return PromptCache.tokenize(s).length;
    }

    private static void send(HttpExchange ex, int status, String body, Duration retryAfter) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        if (retryAfter != null) ex.getResponseHeaders().set("Retry-After", Long.toString(Math.max(0, retryAfter.toSeconds())));
        ex.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(bytes);
        }
    }

    private static void sleep(Duration d) {
        if (d == null || d.isZero() || d.isNegative()) return;
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        server.stop(0);
        handlers.shutdown(); // idle handler threads end now, busy ones when their answer is sent
    }
}
