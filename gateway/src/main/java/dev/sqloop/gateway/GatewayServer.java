package dev.sqloop.gateway;

import dev.sqloop.common.JsonCodec;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import io.javalin.http.HttpResponseException;
import io.javalin.json.JavalinJackson;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import jakarta.servlet.DispatcherType;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
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

    private final GatewayConfig config;
    private final Javalin app;

    GatewayServer(GatewayConfig config, Submitter submitter, ResultsView view, PrometheusMeterRegistry registry) {
        this.config = config;
        Auth auth = new Auth(config.apiKeys());
        Forwarding forwarding = new Forwarding(view);
        ExampleEndpoints examples = new ExampleEndpoints(config, submitter, view, registry);
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
            ctx.status(500).json(Map.of("error", "internal_error", "message", "unexpected failure; see the gateway log"));
        });
        app.error(404, ctx -> {
            if (ctx.result() == null) ctx.json(Map.of("error", "not_found", "message", "no such endpoint: " + ctx.method() + " " + ctx.path()));
        });
        app.error(405, ctx -> ctx.json(Map.of("error", "method_not_allowed", "message", ctx.method() + " is not allowed on " + ctx.path())));
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
        app.before(auth::authenticate);
        app.before(GatewayServer::refuseUnreadQueryParameters);

        app.get("/healthy", ctx -> probe(ctx, view.alive()));
        app.get("/ready", ctx -> probe(ctx, view.running()));
        app.get("/metrics", ctx -> ctx.contentType("text/plain; version=0.0.4; charset=utf-8").result(registry.scrape()));
        app.get("/openapi.json", ctx -> ctx.contentType("application/json").result(openApi()));
        app.get("/v1/datasources", ctx -> ctx.json(Map.of("datasources", datasourceList())));

        RecentSubmissions recent = new RecentSubmissions(java.time.Clock.systemUTC());
        new QuestionEndpoints(config, submitter, view, forwarding, recent).register(app);
        new FeedbackEndpoints(config, submitter, forwarding, examples, recent).register(app);
        new BatchEndpoints(config, submitter, view, forwarding, recent).register(app);
        examples.register(app);
    }

    public GatewayServer start() {
        app.start(config.host(), config.port());
        return this;
    }

    public int port() {
        return app.port();
    }

    private List<Map<String, String>> datasourceList() {
        List<Map<String, String>> out = new ArrayList<>();
        new TreeMap<>(config.datasources()).forEach((name, dialect) -> out.add(Map.of("name", name, "dialect", dialect.wireName())));
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
        ctx.status(ok ? 200 : 503).json(Map.of("status", ok ? "UP" : "DOWN"));
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
