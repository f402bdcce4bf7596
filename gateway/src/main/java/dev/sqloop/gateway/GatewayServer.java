package dev.sqloop.gateway;

import static io.javalin.http.HandlerType.GET;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sqloop.common.JsonCodec;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import io.javalin.http.HttpResponseException;
import io.javalin.json.JavalinJackson;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import jakarta.servlet.DispatcherType;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.TreeMap;
import org.eclipse.jetty.servlet.FilterHolder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP server: error mapping, authentication ({@link Auth}) and the endpoint classes — questions
 * ({@link QuestionEndpoints}), batches ({@link BatchEndpoints}), feedback ({@link FeedbackEndpoints}), the few-shot
 * examples ({@link ExampleEndpoints}) — plus probes, metrics, the OpenAPI document and the datasource list.
 * Every input is validated and refused with a 4xx JSON body {@code {error, message, field|line}}; a refused
 * request enqueues nothing. API keys map to tenants; another tenant's ids answer 404.
 */
public final class GatewayServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(GatewayServer.class);

    static final String SERVICE_TAG = "service";
    private static final String METRICS_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final GatewayConfig config;
    private final Javalin app;
    private final OpenApiDocument document;

    GatewayServer(GatewayConfig config, Submitter submitter, ResultsView view, PrometheusMeterRegistry registry) {
        this.config = config;
        KeyGuesses guesses = new KeyGuesses();
        Auth auth = new Auth(config.apiKeys(), guesses);
        Forwarding forwarding = new Forwarding(view);
        ExampleEndpoints examples = new ExampleEndpoints(config, submitter, view, registry, forwarding);
        long largestBody = Math.max(config.maxBodyBytes(), config.maxBatchBytes());
        this.app = Javalin.create(c -> {
            c.showJavalinBanner = false;
            c.useVirtualThreads = true;
            c.jsonMapper(new JavalinJackson(JsonCodec.mapper(), false));
            // Endpoints read bodies through Http.boundedBody (counted while reading); this is Javalin's own cap on top.
            c.http.maxRequestSize = largestBody;
            c.http.prefer405over404 = true;
            // What Jetty answers itself (bad URIs, oversized headers, unparseable requests) is JSON too.
            c.jetty.modifyServer(server -> server.setErrorHandler(new JsonErrorHandler()));
            c.jetty.modifyServletContextHandler(handler -> {
                handler.setErrorHandler(new JsonErrorHandler());
                // ahead of Javalin's servlet: a request asking for another method never reaches routing
                handler.addFilter(new FilterHolder(new MethodOverrideRefusal(config.maxBodyBytes())), "/*", EnumSet.of(DispatcherType.REQUEST));
            });
        });
        app.exception(ApiError.class, (e, ctx) -> {
            // The refused body is not read further by the gateway; the connection closes after the answer (Jetty
            // discards, without buffering, only what has already arrived before it answers).
            if (e.status() == 413) ctx.header("Connection", "close");
            ctx.status(e.status()).json(e.body());
        });
        app.exception(HttpResponseException.class, (e, ctx) ->
                ctx.status(e.getStatus()).json(JsonErrorHandler.body(e.getStatus(), e.getMessage())));
        app.exception(Exception.class, (e, ctx) -> {
            log.error("gateway: unexpected failure on {} {}", ctx.method(), ctx.path(), e);
            ctx.status(500).json(new ApiError.Refusal("internal_error", "unexpected failure; see the gateway log", null, null));
        });
        app.error(404, ctx -> {
            if (ctx.result() == null) ctx.json(new ApiError.Refusal("not_found", "no such endpoint: " + ctx.method() + " " + ctx.path(), null, null));
        });
        app.error(405, ctx -> ctx.json(new ApiError.Refusal("method_not_allowed", ctx.method() + " is not allowed on " + ctx.path(), null, null)));
        // Any other status set without a body (a handler or Javalin itself) still answers the JSON error body.
        for (int status : new int[] {400, 401, 403, 406, 408, 411, 413, 414, 415, 431, 500, 501, 503}) {
            app.error(status, ctx -> {
                if (ctx.result() == null) ctx.json(JsonErrorHandler.body(ctx.status().getCode(), null));
            });
        }
        // Javalin routes by Context.method(), the X-HTTP-Method-Override header when present; MethodOverrideRefusal
        // stops those requests before routing. Should a Javalin release take the method from anywhere else, refuse.
        app.before(ctx -> {
            if (ctx.method() != HandlerType.Companion.findByName(ctx.req().getMethod())) {
                throw ApiError.badRequest("the request's method (" + ctx.req().getMethod() + ") is the only one acted on, not "
                        + ctx.method(), null);
            }
        });
        app.before(ctx -> {
            if (Auth.PUBLIC_PATHS.contains(ctx.path())) return;
            long locked = guesses.lockedFor(ctx.ip(), java.time.Instant.now());
            if (locked > 0) {
                ctx.header("Retry-After", Long.toString(locked));
                throw KeyGuesses.refusal(locked);
            }
        });
        app.before(auth::authenticate);
        app.before(GatewayServer::refuseUnreadQueryParameters);

        ApiOperation.route(app, GET, "/healthy", ctx -> probe(ctx, view.alive()), op -> op.id("healthy", SERVICE_TAG, "Liveness")
                .answers(200, "UP: the results view is alive", Answers.Probe.class)
                .answers(503, "DOWN: the results view has failed", Answers.Probe.class));
        ApiOperation.route(app, GET, "/ready", ctx -> probe(ctx, view.running()), op -> op.id("ready", SERVICE_TAG,
                        "Readiness: the results view is running")
                .answers(200, "UP", Answers.Probe.class)
                .answers(503, "DOWN: the view is starting, rebalancing or restoring", Answers.Probe.class));
        ApiOperation.route(app, GET, "/metrics", ctx -> ctx.contentType(METRICS_TYPE).result(registry.scrape()), op -> op
                .id("metrics", SERVICE_TAG, "Prometheus metrics (text exposition format 0.0.4)")
                .answers(200, "The metrics", "text/plain", String.class, false));
        ApiOperation.route(app, GET, "/openapi.json", this::serveDocument, op -> op.id("openApiDocument", SERVICE_TAG,
                        "This document: OpenAPI 3.1, generated from the gateway's routes and records")
                .answers(200, "The document, with servers naming the address the request reached", ObjectNode.class));
        ApiOperation.route(app, GET, "/v1/datasources", ctx -> ctx.json(new Answers.Datasources(datasourceList())), op -> op
                .id("listDatasources", SERVICE_TAG, "Datasources questions may target, with their dialects")
                .answers(200, "The configured datasources, by name", Answers.Datasources.class));

        RecentSubmissions recent = new RecentSubmissions(java.time.Clock.systemUTC());
        new QuestionEndpoints(config, submitter, view, forwarding, recent).register(app);
        new FeedbackEndpoints(config, submitter, forwarding, examples, recent).register(app);
        BatchList batches = new BatchList(view, forwarding);
        new BatchEndpoints(config, submitter, view, forwarding, recent, batches).register(app);
        examples.register(app);
        // the review console: HTML pages under /console, outside the API document (Console.serves)
        new Console(config, view, batches, () -> app.port(), guesses).register(app);
        // last: the document is read off every route registered above, and refuses to build if one has no description
        this.document = OpenApiDocument.of(app, config);
    }

    /** The OpenAPI document, its servers naming the address this request reached (the advertised URL without a usable Host). */
    private void serveDocument(Context ctx) {
        ctx.json(document.servedAt(OpenApiDocument.baseUrl(ctx.scheme(), ctx.header("Host"), config.advertisedUrl())));
    }

    /** The Javalin app, for tests that inspect its routes. */
    Javalin app() {
        return app;
    }

    /** Every route this server answers, and the operation documenting each. */
    List<OpenApiDocument.Route> routes() {
        return OpenApiDocument.routes(app);
    }

    public GatewayServer start() {
        app.start(config.host(), config.port());
        return this;
    }

    public int port() {
        return app.port();
    }

    private List<Answers.Datasource> datasourceList() {
        List<Answers.Datasource> out = new ArrayList<>();
        new TreeMap<>(config.datasources()).forEach((name, dialect) -> out.add(new Answers.Datasource(name, dialect)));
        return out;
    }

    /**
     * A query parameter on an API endpoint that reads none is a 400 naming it: a {@code cursor} or {@code limit} sent to
     * {@code /v1/batches/{id}/results} was silently ignored, and the caller took the whole stream for the page it asked
     * for. {@code GET /v1/examples} is the one endpoint with parameters; {@link ExampleQuery} validates each of them.
     */
    static void refuseUnreadQueryParameters(Context ctx) {
        if (!ctx.path().startsWith("/v1/")) return;
        // Javalin routes /v1/examples/ as /v1/examples
        if (ctx.method() == HandlerType.GET && ctx.path().replaceAll("/+$", "").equals("/v1/examples")) return;
        ctx.queryParamMap().keySet().stream().findFirst().ifPresent(name -> {
            throw ApiError.badRequest(ctx.method() + " " + ctx.path() + " takes no query parameters; '" + name + "' was given", name);
        });
    }

    private static void probe(Context ctx, boolean ok) {
        ctx.status(ok ? 200 : 503).json(new Answers.Probe(ok ? "UP" : "DOWN"));
    }

    @Override
    public void close() {
        app.stop();
    }
}
