package dev.sqloop.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sqloop.common.config.EnvConfig;
import io.javalin.Javalin;
import io.javalin.http.HandlerType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The document is read off the server's own routes: every route is in it, and a route without a description is refused. */
class OpenApiDocumentTest {
    private static GatewayConfig config(Map<String, String> extra) {
        Map<String, String> env = new HashMap<>(Map.of("SQLOOP_BOOTSTRAP_SERVERS", "127.0.0.1:1",
                "SQLOOP_DATASOURCE_DEMO_DIALECT", "duckdb", "SQLOOP_DATASOURCE_SALES_DIALECT", "trino"));
        env.putAll(extra);
        return GatewayConfig.fromEnv(new EnvConfig(env));
    }

    /** A server built as Gateway builds it (nothing started: routes and document need no broker). */
    private static GatewayServer server(GatewayConfig config) {
        return new GatewayServer(config, null, null, null);
    }

    private static ObjectNode document(GatewayConfig config) {
        GatewayServer server = server(config);
        return OpenApiDocument.of(server.app(), config).servedAt("http://127.0.0.1:8080");
    }

    @Test
    void shouldDocumentEveryRouteTheServerServesAndNoOther() {
        GatewayConfig config = config(Map.of());
        GatewayServer server = server(config);
        List<OpenApiDocument.Route> routes = server.routes();
        assertTrue(routes.size() >= 20, "the gateway's routes: " + routes);
        assertEquals(List.of(), OpenApiDocument.undocumented(server.app()), "every route carries its operation");

        JsonNode paths = OpenApiDocument.of(server.app(), config).servedAt("http://x").get("paths");
        List<String> documented = new ArrayList<>();
        paths.fields().forEachRemaining(p -> p.getValue().fieldNames().forEachRemaining(m -> documented.add(m.toUpperCase() + " " + p.getKey())));
        assertEquals(new TreeSet<>(routes.stream().map(OpenApiDocument.Route::toString).toList()), new TreeSet<>(documented));
        assertTrue(documented.contains("DELETE /v1/batches/{id}"), "cancelling a batch is where it is served");
        assertFalse(paths.get("/v1/examples").has("delete"), "and not on /v1/examples, which answers 405");
    }

    @Test
    void shouldRefuseToBuildTheDocumentWhenARouteHasNoDescription() {
        GatewayConfig config = config(Map.of());
        Javalin app = server(config).app();
        app.get("/v1/undocumented", ctx -> ctx.result("served, but not in the document"));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> OpenApiDocument.of(app, config));
        assertTrue(e.getMessage().contains("GET /v1/undocumented"), e.getMessage());
        assertEquals("GET /v1/undocumented", OpenApiDocument.undocumented(app).getFirst().toString());
    }

    @Test
    void shouldTakeLimitsDatasourcesAndAuthenticationFromTheRunningConfiguration() {
        JsonNode open = document(config(Map.of("SQLOOP_GATEWAY_MAX_QUESTION_CHARS", "123", "SQLOOP_GATEWAY_MAX_ATTEMPTS_LIMIT", "7")));
        JsonNode question = open.at("/components/schemas/QuestionRequest/properties");
        assertEquals(123, question.at("/question/maxLength").asInt());
        assertEquals(7, question.at("/maxAttempts/maximum").asInt());
        assertEquals("[\"demo\",\"sales\"]", question.at("/datasource/enum").toString());
        assertFalse(open.has("security"), "no keys configured: no requirement");
        assertFalse(open.at("/paths/~1v1~1questions/post/responses").has("401"), "and no 401");

        JsonNode keyed = document(config(Map.of("SQLOOP_GATEWAY_API_KEYS", "k:tenant")));
        assertEquals("[{\"ApiKey\":[]},{\"Bearer\":[]}]", keyed.get("security").toString());
        assertEquals("X-API-Key", keyed.at("/components/securitySchemes/ApiKey/name").asText());
        assertEquals("bearer", keyed.at("/components/securitySchemes/Bearer/scheme").asText());
        assertTrue(keyed.at("/paths/~1v1~1questions/post/responses").has("401"));
        for (String open401 : Auth.PUBLIC_PATHS) {
            JsonNode get = keyed.at("/paths/" + open401.replace("/", "~1") + "/get");
            assertEquals("[]", get.get("security").toString(), open401 + " needs no key");
            assertFalse(get.get("responses").has("401"), open401);
        }
    }

    @Test
    void shouldNameInServersOnlyAPlainHostTheRequestReached() {
        assertEquals("http://gw.example:8080", OpenApiDocument.baseUrl("http", "gw.example:8080", "http://fallback"));
        assertEquals("http://[::1]:80", OpenApiDocument.baseUrl("http", "[::1]:80", "http://fallback"));
        for (String host : new String[] {null, "", "evil.example/path", "a b", "x\"y", "h:port", "user@host"}) {
            assertEquals("http://fallback", OpenApiDocument.baseUrl("http", host, "http://fallback"), String.valueOf(host));
        }
        ObjectNode doc = document(config(Map.of()));
        assertEquals("http://127.0.0.1:8080", doc.at("/servers/0/url").asText());
        assertEquals(List.of("openapi", "info", "servers"), first(doc, 3), "servers follows info");
    }

    @Test
    void shouldRegisterEachRouteWithItsOperation() {
        Javalin app = Javalin.create();
        ApiOperation.route(app, HandlerType.GET, "/v1/thing/{id}", ctx -> {}, op -> op.id("getThing", "service", "A thing")
                .answers(200, "It", Answers.Probe.class).refuses(404));
        OpenApiDocument.Route route = OpenApiDocument.routes(app).getFirst();
        assertEquals("GET /v1/thing/{id}", route.toString());
        assertEquals("getThing", route.operation().operationId());
        assertEquals(List.of(200, 404), new ArrayList<>(route.operation().answers().keySet()));
        assertThrows(IllegalStateException.class, () -> ApiOperation.route(app, HandlerType.GET, "/v1/none", ctx -> {},
                op -> op.id("none", "service", "Refuses only").refuses(404)), "an operation documents a success");
    }

    private static List<String> first(JsonNode node, int n) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names.subList(0, n);
    }
}
