package dev.sqloop.gateway;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sqloop.common.Dialect;
import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.message.BatchManifest;
import dev.sqloop.common.message.FeedbackCommand;
import dev.sqloop.common.message.QuestionResult;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.gateway.Views.BatchStatus;
import dev.sqloop.gateway.Views.QuestionState;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.json.JavalinJackson;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP API: submit questions and batches, poll status and traces, stream a batch's results, feedback, and
 * the few-shot examples ({@link ExampleEndpoints}).
 * Every input is validated and refused with a 4xx JSON body {@code {error, message, field|line}}; a refused
 * request enqueues nothing. API keys map to tenants; another tenant's ids answer 404.
 */
public final class GatewayServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(GatewayServer.class);
    private static final String FORWARDED = "X-Sqloop-Forwarded";
    private static final Set<String> PUBLIC_PATHS = Set.of("/healthy", "/ready", "/metrics", "/openapi.json");
    private static final Set<String> FEEDBACK_ACTIONS = Set.of("save", "unsave", "mark-wrong");
    private static final String TENANT = "sqloop.tenant";

    private final GatewayConfig config;
    private final Submitter submitter;
    private final ResultsView view;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ObjectMapper mapper = JsonCodec.mapper();
    private final Javalin app;
    private final ExampleEndpoints examples;

    GatewayServer(GatewayConfig config, Submitter submitter, ResultsView view, PrometheusMeterRegistry registry) {
        this.config = config;
        this.submitter = submitter;
        this.view = view;
        this.examples = new ExampleEndpoints(config, submitter, view, registry);
        this.app = Javalin.create(c -> {
            c.showJavalinBanner = false;
            c.useVirtualThreads = true;
            c.jsonMapper(new JavalinJackson(mapper, false));
            c.http.maxRequestSize = 512L * 1024 * 1024; // batches are streamed and counted line by line below
        });
        app.exception(ApiError.class, (e, ctx) -> ctx.status(e.status()).json(e.body()));
        app.exception(Exception.class, (e, ctx) -> {
            log.error("gateway: unexpected failure on {} {}", ctx.method(), ctx.path(), e);
            ctx.status(500).json(Map.of("error", "internal_error", "message", "unexpected failure; see the gateway log"));
        });
        app.error(404, ctx -> {
            if (ctx.result() == null) ctx.json(Map.of("error", "not_found", "message", "no such endpoint: " + ctx.method() + " " + ctx.path()));
        });
        app.error(405, ctx -> ctx.json(Map.of("error", "method_not_allowed", "message", ctx.method() + " is not allowed on " + ctx.path())));
        app.before(this::authenticate);

        app.get("/healthy", ctx -> probe(ctx, view.alive()));
        app.get("/ready", ctx -> probe(ctx, view.running()));
        app.get("/metrics", ctx -> ctx.contentType("text/plain; version=0.0.4; charset=utf-8").result(registry.scrape()));
        app.get("/openapi.json", ctx -> ctx.contentType("application/json").result(openApi()));

        app.post("/v1/questions", this::submitQuestion);
        app.get("/v1/questions/{id}", this::getQuestion);
        app.get("/v1/questions/{id}/trace", this::getTrace);
        app.post("/v1/questions/{id}/feedback", this::feedback);
        app.post("/v1/batches", this::submitBatch);
        app.get("/v1/batches/{id}", this::getBatch);
        app.get("/v1/batches/{id}/results", this::streamBatchResults);
        app.get("/v1/datasources", ctx -> ctx.json(Map.of("datasources", datasourceList())));
        examples.register(app);
    }

    public GatewayServer start() {
        app.start(config.host(), config.port());
        return this;
    }

    public int port() {
        return app.port();
    }

    // ------------------------------------------------------------------ auth

    private void authenticate(Context ctx) {
        if (PUBLIC_PATHS.contains(ctx.path())) return;
        if (config.apiKeys().isEmpty()) {
            ctx.attribute(TENANT, "default");
            return;
        }
        String key = Optional.ofNullable(ctx.header("X-API-Key"))
                .or(() -> Optional.ofNullable(ctx.header("Authorization")).filter(h -> h.startsWith("Bearer ")).map(h -> h.substring(7)))
                .orElse(null);
        String tenant = key == null ? null : config.apiKeys().get(key.trim());
        if (tenant == null) {
            throw new ApiError(401, "unauthorized", key == null ? "an API key is required (X-API-Key or Authorization: Bearer)" : "unknown API key", null, null);
        }
        ctx.attribute(TENANT, tenant);
    }

    static String tenant(Context ctx) {
        return ctx.attribute(TENANT);
    }

    // ------------------------------------------------------------------ submit

    private void submitQuestion(Context ctx) {
        requireJson(ctx, "application/json");
        JsonNode body = parseJson(ctx.body());
        QuestionRequest request = QuestionRequest.parse(body, config);
        String tenant = tenant(ctx);
        String id = Submitter.questionId(tenant, request.clientId());
        if (request.clientId() != null) {
            Optional<Map<String, Object>> existing = findQuestion(ctx, id);
            if (existing.isPresent()) {
                ctx.status(200).json(accepted(id, "existing", existing.get().get("status")));
                return;
            }
        }
        QuestionTask task = submitter.task(id, tenant, null, request);
        submitter.submitQuestions(List.of(task));
        ctx.status(202).json(accepted(id, null, "queued"));
    }

    private static Map<String, Object> accepted(String id, String note, Object status) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("id", id);
        out.put("status", status);
        out.put("statusUrl", "/v1/questions/" + id);
        if (note != null) out.put("duplicateOf", id);
        return out;
    }

    /**
     * A batch is all-or-nothing: every line is validated first; one bad line refuses the whole batch with its
     * line number and nothing is enqueued. Accepted batches are written in one Kafka transaction.
     */
    private void submitBatch(Context ctx) throws IOException {
        String type = mediaType(ctx);
        List<QuestionRequest> requests = switch (type) {
            case "application/json" -> readJsonArray(ctx.bodyInputStream());
            case "application/x-ndjson", "application/jsonl", "application/json-lines" -> readJsonLines(ctx.bodyInputStream());
            default -> throw new ApiError(415, "unsupported_media_type",
                    "send a JSON array (application/json) or JSON lines (application/x-ndjson)", null, null);
        };
        if (requests.isEmpty()) throw ApiError.badRequest("the batch has no questions", null);
        String tenant = tenant(ctx);
        String batchId = UUID.randomUUID().toString();
        List<QuestionTask> tasks = new ArrayList<>(requests.size());
        for (QuestionRequest r : requests) tasks.add(submitter.task(Submitter.questionId(tenant, r.clientId()), tenant, batchId, r));
        submitter.submitBatch(new BatchManifest(0, batchId, tenant, tasks.size(), submitter.now()), tasks);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("batchId", batchId);
        out.put("count", tasks.size());
        out.put("statusUrl", "/v1/batches/" + batchId);
        out.put("resultsUrl", "/v1/batches/" + batchId + "/results");
        ctx.status(202).json(out);
    }

    private List<QuestionRequest> readJsonArray(InputStream in) throws IOException {
        List<QuestionRequest> out = new ArrayList<>();
        try (JsonParser p = mapper.getFactory().createParser(in)) {
            if (p.nextToken() != JsonToken.START_ARRAY) throw ApiError.badRequest("a JSON batch must be an array of questions", null);
            int index = 0;
            while (p.nextToken() != JsonToken.END_ARRAY) {
                index++;
                if (index > config.maxBatchSize()) throw tooLarge();
                JsonNode node = mapper.readTree(p);
                try {
                    out.add(QuestionRequest.parse(node, config));
                } catch (ApiError e) {
                    throw e.atLine(index);
                }
            }
        } catch (JsonProcessingException e) {
            throw ApiError.badRequest("invalid JSON: " + e.getOriginalMessage(), null);
        }
        return out;
    }

    private List<QuestionRequest> readJsonLines(InputStream in) throws IOException {
        List<QuestionRequest> out = new ArrayList<>();
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String line;
            int number = 0;
            while ((line = reader.readLine()) != null) {
                number++;
                if (line.isBlank()) continue;
                if (out.size() >= config.maxBatchSize()) throw tooLarge();
                try {
                    out.add(QuestionRequest.parse(parseJson(line), config));
                } catch (ApiError e) {
                    throw e.atLine(number);
                }
            }
        }
        return out;
    }

    private ApiError tooLarge() {
        return new ApiError(413, "too_large", "a batch holds at most " + config.maxBatchSize() + " questions", null, null);
    }

    // ------------------------------------------------------------------ read

    private void getQuestion(Context ctx) {
        if (forwarded(ctx, ResultsView.QUESTIONS, ctx.pathParam("id"))) return;
        ctx.json(findQuestion(ctx, ctx.pathParam("id")).orElseThrow(() -> ApiError.notFound("question " + ctx.pathParam("id"))));
    }

    /** The question's status view, from the owning instance; empty when unknown to this tenant. */
    private Optional<Map<String, Object>> findQuestion(Context ctx, String id) {
        Optional<URI> owner = view.ownerOf(ResultsView.QUESTIONS, id);
        if (owner.isPresent()) {
            HttpResponse<String> r = forward(ctx, owner.get(), "/v1/questions/" + id);
            if (r.statusCode() == 404) return Optional.empty();
            if (r.statusCode() != 200) throw new ApiError(r.statusCode(), "upstream", r.body(), null, null);
            return Optional.of(readMap(r.body()));
        }
        Optional<QuestionState> state = view.get(ResultsView.QUESTIONS, id);
        return state.filter(s -> tenant(ctx).equals(s.tenant())).map(s -> StatusView.of(id, s));
    }

    private void getTrace(Context ctx) {
        String id = ctx.pathParam("id");
        if (forwarded(ctx, ResultsView.QUESTIONS, id)) return;
        QuestionState state = view.<QuestionState>get(ResultsView.QUESTIONS, id)
                .filter(s -> tenant(ctx).equals(s.tenant()))
                .orElseThrow(() -> ApiError.notFound("question " + id));
        ctx.json(Map.of("id", id, "attempts", state.events()));
    }

    private void getBatch(Context ctx) {
        String id = ctx.pathParam("id");
        if (forwarded(ctx, ResultsView.BATCH_STATUS, id)) return;
        BatchStatus status = view.<BatchStatus>get(ResultsView.BATCH_STATUS, id)
                .filter(s -> tenant(ctx).equals(s.manifest().tenant()))
                .orElseThrow(() -> ApiError.notFound("batch " + id));
        ctx.json(StatusView.ofBatch(status));
    }

    private void streamBatchResults(Context ctx) throws IOException {
        String id = ctx.pathParam("id");
        if (forwarded(ctx, ResultsView.RESULTS_BY_BATCH, id)) return;
        ctx.contentType("application/x-ndjson");
        OutputStream out = ctx.outputStream();
        try (KeyValueIterator<String, QuestionResult> it = view.batchResults(id)) {
            String tenant = tenant(ctx);
            while (it.hasNext()) {
                QuestionResult r = it.next().value;
                if (!tenant.equals(r.tenant())) continue;
                out.write(JsonCodec.encode(r));
                out.write('\n');
            }
        }
        out.flush();
    }

    private void feedback(Context ctx) {
        requireJson(ctx, "application/json");
        String id = ctx.pathParam("id");
        JsonNode body = parseJson(ctx.body());
        String action = body.path("action").asText("");
        if (!FEEDBACK_ACTIONS.contains(action)) throw ApiError.badRequest("action must be one of " + FEEDBACK_ACTIONS, "action");
        Map<String, Object> q = findQuestion(ctx, id).orElseThrow(() -> ApiError.notFound("question " + id));
        JsonNode given = body.get("sql");
        if (given != null && !given.isNull() && !given.isTextual()) throw ApiError.badRequest("sql must be a string", "sql");
        String sql = given != null && !given.isNull() ? given.asText() : (String) q.get("sql");
        if ("save".equals(action) && (sql == null || sql.isBlank())) {
            throw ApiError.badRequest("save needs SQL: the question has none yet, pass \"sql\"", "sql");
        }
        // a save makes an example: the question's own SQL is held to the rules of POST /v1/examples too
        if ("save".equals(action)) sql = ExampleSql.require(sql, "sql", config);
        String datasource = (String) q.get("datasource");
        // feedback changes only the asking tenant's own example of its own question (the fewshot service applies it so)
        Dialect dialect = config.datasources().get(datasource);
        submitter.submitFeedback(new FeedbackCommand(0, id, action, tenant(ctx), datasource,
                (String) q.get("question"), sql, dialect == null ? null : dialect.wireName(), submitter.now()));
        ctx.status(202).json(Map.of("id", id, "action", action, "status", "accepted"));
    }

    private List<Map<String, String>> datasourceList() {
        List<Map<String, String>> out = new ArrayList<>();
        new java.util.TreeMap<>(config.datasources()).forEach((name, dialect) -> out.add(Map.of("name", name, "dialect", dialect.wireName())));
        return out;
    }

    // ------------------------------------------------------------------ forwarding

    /** Answers with the owner's response when {@code key} lives on another instance. */
    private boolean forwarded(Context ctx, String store, String key) {
        Optional<URI> owner = view.ownerOf(store, key);
        if (owner.isEmpty()) return false;
        if (ctx.header(FORWARDED) != null) {
            throw new ApiError(503, "unavailable", "results are being rebalanced; retry shortly", null, null);
        }
        HttpResponse<String> r = forward(ctx, owner.get(), ctx.path());
        ctx.status(r.statusCode()).contentType(r.headers().firstValue("Content-Type").orElse("application/json")).result(r.body());
        return true;
    }

    private HttpResponse<String> forward(Context ctx, URI owner, String path) {
        HttpRequest.Builder req = HttpRequest.newBuilder(owner.resolve(path)).timeout(Duration.ofSeconds(30)).header(FORWARDED, "1");
        Optional.ofNullable(ctx.header("X-API-Key")).ifPresent(v -> req.header("X-API-Key", v));
        Optional.ofNullable(ctx.header("Authorization")).ifPresent(v -> req.header("Authorization", v));
        try {
            return http.send(req.GET().build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new ApiError(503, "unavailable", "the gateway instance owning this key is unreachable: " + e.getMessage(), null, null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ApiError(503, "unavailable", "interrupted", null, null);
        }
    }

    // ------------------------------------------------------------------ helpers

    private static void probe(Context ctx, boolean ok) {
        ctx.status(ok ? 200 : 503).json(Map.of("status", ok ? "UP" : "DOWN"));
    }

    private static String mediaType(Context ctx) {
        String type = ctx.contentType();
        if (type == null) throw new ApiError(415, "unsupported_media_type", "a Content-Type header is required", null, null);
        int semi = type.indexOf(';');
        return (semi < 0 ? type : type.substring(0, semi)).trim().toLowerCase(Locale.ROOT);
    }

    static void requireJson(Context ctx, String expected) {
        if (!expected.equals(mediaType(ctx))) {
            throw new ApiError(415, "unsupported_media_type", "Content-Type must be " + expected, null, null);
        }
    }

    static JsonNode parseJson(String body) {
        if (body == null || body.isBlank()) throw ApiError.badRequest("the request body is empty", null);
        try {
            return JsonCodec.mapper().readTree(body);
        } catch (JsonProcessingException e) {
            throw ApiError.badRequest("invalid JSON: " + e.getOriginalMessage(), null);
        }
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> readMap(String json) {
        try {
            return mapper.readValue(json, Map.class);
        } catch (JsonProcessingException e) {
            throw new ApiError(502, "upstream", "invalid answer from another gateway instance", null, null);
        }
    }

    private static String openApi() {
        try (InputStream in = GatewayServer.class.getResourceAsStream("/openapi.json")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException | NullPointerException e) {
            throw new IllegalStateException("openapi.json missing from the gateway jar", e);
        }
    }

    @Override
    public void close() {
        app.stop();
    }
}
