package dev.sqloop.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.classmate.ResolvedType;
import com.github.victools.jsonschema.generator.CustomDefinition;
import com.github.victools.jsonschema.generator.CustomDefinitionProviderV2;
import com.github.victools.jsonschema.generator.CustomPropertyDefinition;
import com.github.victools.jsonschema.generator.CustomPropertyDefinitionProvider;
import com.github.victools.jsonschema.generator.FieldScope;
import com.github.victools.jsonschema.generator.Option;
import com.github.victools.jsonschema.generator.OptionPreset;
import com.github.victools.jsonschema.generator.SchemaBuilder;
import com.github.victools.jsonschema.generator.SchemaGenerationContext;
import com.github.victools.jsonschema.generator.SchemaGenerator;
import com.github.victools.jsonschema.generator.SchemaGeneratorConfigBuilder;
import com.github.victools.jsonschema.generator.SchemaVersion;
import com.github.victools.jsonschema.module.jackson.JacksonModule;
import com.github.victools.jsonschema.module.jackson.JacksonOption;
import com.github.victools.jsonschema.module.swagger2.Swagger2Module;
import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.message.AttemptEvent;
import dev.sqloop.common.message.Execution;
import dev.sqloop.common.message.Issue;
import dev.sqloop.common.message.QuestionResult;
import io.javalin.Javalin;
import io.javalin.router.Endpoint;
import io.swagger.v3.oas.annotations.media.Schema;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The gateway's OpenAPI 3.1 document, generated from the running server: its operations are read off Javalin's router
 * (each route carries its {@link ApiOperation}), their bodies' schemas are generated from the records the handlers read
 * and answer (victools' JSON Schema 2020-12 generator, the dialect of OpenAPI 3.1, with the records' {@code @Schema}
 * annotations and {@link SchemaKeywords} from this gateway's settings). A route registered without an operation makes
 * building the document fail, naming it. {@code servers} is filled per request ({@link #servedAt}).
 */
final class OpenApiDocument {
    static final String OPENAPI_VERSION = "3.1.0";
    /** Where a JSON-lines body's line schema is given: OpenAPI 3.1 has no keyword for a sequence of JSON values. */
    static final String LINE_SCHEMA = "x-sqloop-line-schema";
    static final String API_KEY_SCHEME = "ApiKey";
    static final String BEARER_SCHEME = "Bearer";

    /** Every tag an operation may name, in the order the document lists them. */
    static final Map<String, String> TAGS = orderedMap(
            QuestionEndpoints.TAG, "Single questions: submit, poll, trace, cancel, retry, feedback",
            BatchEndpoints.TAG, "Batches of questions: submit (JSON array or JSON lines), progress, results, cancel, retry",
            ExampleEndpoints.TAG, "The few-shot examples, owned by tenants",
            GatewayServer.SERVICE_TAG, "Datasources, probes, metrics and this document");

    /**
     * Components the common message records (not annotated, shared with every service) always carry: their constructors
     * require them or default them to empty; a primitive is always written. OpenApiContractIT checks real answers.
     */
    private static final Map<Class<?>, Set<String>> ALWAYS_PRESENT = Map.of(
            QuestionResult.class, Set.of("questionId", "status", "reason", "issues", "usage", "timings", "metadata", "retries"),
            AttemptEvent.class, Set.of("questionId", "stage", "issues", "retries"),
            Issue.class, Set.of("category", "message", "candidates"),
            Execution.class, Set.of("columns", "types", "preview"));

    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
    /** A Host header this document may repeat in {@code servers}: a name or address and an optional port, nothing else. */
    private static final Pattern HOST = Pattern.compile("([A-Za-z0-9.-]{1,253}|\\[[0-9A-Fa-f:.]{2,45}\\])(:[0-9]{1,5})?");
    private static final Pattern PATH_PARAMETER = Pattern.compile("\\{([^}/]+)}");

    private final ObjectNode template;

    private OpenApiDocument(ObjectNode template) {
        this.template = template;
    }

    /** One HTTP route of a Javalin app: its method, path and (when registered through {@link ApiOperation#route}) operation. */
    record Route(String method, String path, ApiOperation operation) {
        @Override
        public String toString() {
            return method + " " + path;
        }
    }

    /** Every API route {@code app} serves (before/after handlers are not routes; the console's pages are not API), in path then method order. */
    static List<Route> routes(Javalin app) {
        List<Route> out = new ArrayList<>();
        for (var parsed : app.unsafeConfig().pvt.internalRouter.allHttpHandlers()) {
            Endpoint e = parsed.getEndpoint();
            // the console's HTML pages are no API operations (Console.serves): documented in docs/console.md instead
            if (!e.getMethod().isHttpMethod() || Console.serves(e.getPath())) continue;
            out.add(new Route(e.getMethod().name(), e.getPath(), e.metadata(ApiOperation.class)));
        }
        out.sort(Comparator.comparing(Route::path).thenComparing(Route::method));
        return out;
    }

    /** The routes of {@code app} that carry no operation: each would be served and left out of the document. */
    static List<Route> undocumented(Javalin app) {
        return routes(app).stream().filter(r -> r.operation() == null).toList();
    }

    /** The document of every route of {@code app}; fails naming the routes registered without an operation. */
    static OpenApiDocument of(Javalin app, GatewayConfig config) {
        List<Route> undocumented = undocumented(app);
        if (!undocumented.isEmpty()) {
            throw new IllegalStateException("routes without an OpenAPI operation (register them with ApiOperation.route): " + undocumented);
        }
        return new OpenApiDocument(build(routes(app), config));
    }

    /** The document with {@code servers} naming {@code baseUrl}: how the caller reached this gateway. */
    ObjectNode servedAt(String baseUrl) {
        ObjectNode doc = template.deepCopy();
        ObjectNode server = JSON.objectNode().put("url", baseUrl).put("description", "this gateway, as the request reached it");
        ObjectNode out = JSON.objectNode();
        doc.fields().forEachRemaining(f -> {
            out.set(f.getKey(), f.getValue());
            if (f.getKey().equals("info")) out.putArray("servers").add(server); // where the specification lists it
        });
        return out;
    }

    /** The base URL a request reached: its scheme and Host header when that is a plain host[:port], else {@code fallback}. */
    static String baseUrl(String scheme, String host, String fallback) {
        if (host == null || !HOST.matcher(host).matches() || !("http".equals(scheme) || "https".equals(scheme))) return fallback;
        return scheme + "://" + host;
    }

    private static ObjectNode build(List<Route> routes, GatewayConfig config) {
        boolean keys = !config.apiKeys().isEmpty();
        SchemaBuilder schemas = schemaGenerator(config).buildMultipleSchemaDefinitions();

        ObjectNode doc = JSON.objectNode();
        doc.put("openapi", OPENAPI_VERSION);
        ObjectNode info = doc.putObject("info");
        info.put("title", "sqloop gateway");
        info.put("version", "0.1.0");
        info.put("summary", "Submit natural-language questions, poll the validated and executed SQL");
        info.put("description", description(keys));
        if (keys) doc.putArray("security").add(JSON.objectNode().set(API_KEY_SCHEME, JSON.arrayNode()))
                .add(JSON.objectNode().set(BEARER_SCHEME, JSON.arrayNode()));
        ArrayNode tags = doc.putArray("tags");
        TAGS.forEach((name, text) -> tags.addObject().put("name", name).put("description", text));

        ObjectNode paths = doc.putObject("paths");
        for (Route route : routes) {
            ApiOperation op = route.operation();
            if (!TAGS.containsKey(op.tag())) throw new IllegalStateException(route + ": tag '" + op.tag() + "' is not in OpenApiDocument.TAGS");
            ObjectNode path = paths.has(route.path()) ? (ObjectNode) paths.get(route.path()) : paths.putObject(route.path());
            path.set(route.method().toLowerCase(java.util.Locale.ROOT), operation(route, op, keys, schemas));
        }

        ObjectNode components = doc.putObject("components");
        // the schemas are complete only now: every reference above was collected
        ObjectNode definitions = schemas.collectDefinitions("components/schemas");
        inlineLineOnlySchemas(paths, definitions);
        components.set("schemas", sorted(definitions));
        ObjectNode security = components.putObject("securitySchemes");
        String keysState = keys ? "" : " Authentication is off on this gateway (SQLOOP_GATEWAY_API_KEYS is empty): every caller is tenant default.";
        security.putObject(API_KEY_SCHEME).put("type", "apiKey").put("in", "header").put("name", "X-API-Key")
                .put("description", "An API key from SQLOOP_GATEWAY_API_KEYS; it names the caller's tenant." + keysState);
        security.putObject(BEARER_SCHEME).put("type", "http").put("scheme", "bearer")
                .put("description", "The same API key as Authorization: Bearer <key>." + keysState);
        return doc;
    }

    private static ObjectNode operation(Route route, ApiOperation op, boolean keys, SchemaBuilder schemas) {
        ObjectNode out = JSON.objectNode();
        out.putArray("tags").add(op.tag());
        out.put("operationId", op.operationId());
        out.put("summary", op.summary());
        if (op.description() != null) out.put("description", op.description());
        boolean open = Auth.PUBLIC_PATHS.contains(route.path());
        // an empty requirement list: no key needed (the probes, metrics and this document), or none checked (auth off)
        if (open || !keys) out.putArray("security");

        ArrayNode parameters = JSON.arrayNode();
        Matcher m = PATH_PARAMETER.matcher(route.path());
        while (m.find()) {
            parameters.addObject().put("name", m.group(1)).put("in", "path").put("required", true)
                    .put("description", "the " + op.tag().replaceAll("s$", "") + "'s " + m.group(1))
                    .putObject("schema").put("type", "string").put("minLength", 1);
        }
        for (ApiOperation.QueryParameter q : op.query()) {
            parameters.addObject().put("name", q.name()).put("in", "query").put("required", false).put("description", q.description())
                    .set("schema", JsonCodec.mapper().valueToTree(q.schema()));
        }
        if (!parameters.isEmpty()) out.set("parameters", parameters);

        if (!op.requestBody().isEmpty()) {
            ObjectNode body = out.putObject("requestBody");
            body.put("required", op.bodyRequired());
            ObjectNode content = body.putObject("content");
            op.requestBody().forEach((type, c) -> content.set(type, media(c, schemas)));
        }

        Map<Integer, ApiOperation.Answer> answers = new LinkedHashMap<>(op.answers());
        // every request may be refused before its handler: a method override or a query parameter (MethodOverrideRefusal,
        // GatewayServer.refuseUnreadQueryParameters), and without a valid key when keys are configured (Auth)
        answers.putIfAbsent(400, refusal(400));
        if (keys && !open) answers.putIfAbsent(401, refusal(401));
        ObjectNode responses = out.putObject("responses");
        answers.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> {
            ObjectNode r = responses.putObject(Integer.toString(e.getKey()));
            r.put("description", e.getValue().description());
            if (!e.getValue().content().isEmpty()) {
                ObjectNode content = r.putObject("content");
                e.getValue().content().forEach(c -> content.set(c.mediaType(), media(c, schemas)));
            }
        });
        ObjectNode other = responses.putObject("default");
        other.put("description", "Any other error, as the same JSON body: 500 internal_error, or what the HTTP server refuses "
                + "before routing (414, 431, a malformed request)");
        other.putObject("content").set(ApiOperation.JSON, media(new ApiOperation.Content(ApiOperation.JSON, ApiError.Refusal.class, false), schemas));
        return out;
    }

    /**
     * A record only ever described as the line of a JSON-lines body (a batch's results) is written into its
     * {@value #LINE_SCHEMA} rather than kept as a component: OpenAPI tools do not read extensions, so they would see a
     * component nothing uses.
     */
    private static void inlineLineOnlySchemas(ObjectNode paths, ObjectNode definitions) {
        List<ObjectNode> lineSchemas = new ArrayList<>();
        Set<String> usedElsewhere = new java.util.HashSet<>();
        collectReferences(paths, lineSchemas, usedElsewhere);
        for (JsonNode definition : definitions) collectReferences(definition, new ArrayList<>(), usedElsewhere);
        for (ObjectNode line : lineSchemas) {
            String name = line.path("$ref").asText("").replace("#/components/schemas/", "");
            if (name.isEmpty() || usedElsewhere.contains(name) || !definitions.has(name)) continue;
            line.removeAll();
            line.setAll((ObjectNode) definitions.remove(name));
        }
    }

    private static void collectReferences(JsonNode node, List<ObjectNode> lineSchemas, Set<String> used) {
        if (node.isObject()) {
            node.fields().forEachRemaining(f -> {
                if (f.getKey().equals(LINE_SCHEMA) && f.getValue().isObject()) lineSchemas.add((ObjectNode) f.getValue());
                else if (f.getKey().equals("$ref")) used.add(f.getValue().asText().replace("#/components/schemas/", ""));
                else collectReferences(f.getValue(), lineSchemas, used);
            });
        } else if (node.isArray()) {
            node.forEach(n -> collectReferences(n, lineSchemas, used));
        }
    }

    private static ApiOperation.Answer refusal(int status) {
        return new ApiOperation.Answer(ApiOperation.REFUSALS.get(status),
                List.of(new ApiOperation.Content(ApiOperation.JSON, ApiError.Refusal.class, false)));
    }

    private static ObjectNode media(ApiOperation.Content c, SchemaBuilder schemas) {
        ObjectNode media = JSON.objectNode();
        if (c.lines()) {
            media.putObject("schema").put("type", "string").put("description", "JSON lines: one JSON value per line, each as "
                    + LINE_SCHEMA + " describes it");
            media.set(LINE_SCHEMA, schemaOf(c.type(), schemas));
        } else {
            media.set("schema", schemaOf(c.type(), schemas));
        }
        return media;
    }

    private static ObjectNode schemaOf(Class<?> type, SchemaBuilder schemas) {
        if (type == String.class) return JSON.objectNode().put("type", "string");
        if (type == ObjectNode.class) return JSON.objectNode().put("type", "object");
        return schemas.createSchemaReference(type);
    }

    private static SchemaGenerator schemaGenerator(GatewayConfig config) {
        SchemaGeneratorConfigBuilder b = new SchemaGeneratorConfigBuilder(SchemaVersion.DRAFT_2020_12, OptionPreset.PLAIN_JSON)
                .with(new JacksonModule(JacksonOption.FLATTENED_ENUMS_FROM_JSONVALUE, JacksonOption.RESPECT_JSONPROPERTY_ORDER))
                .with(new Swagger2Module())
                .with(Option.DEFINITIONS_FOR_ALL_OBJECTS, Option.PLAIN_DEFINITION_KEYS, Option.MAP_VALUES_AS_ADDITIONAL_PROPERTIES,
                        Option.STANDARD_FORMATS, Option.FORBIDDEN_ADDITIONAL_PROPERTIES_BY_DEFAULT)
                .without(Option.SCHEMA_VERSION_INDICATOR);
        b.forFields().withRequiredCheck(OpenApiDocument::required);
        // a component naming SchemaKeywords gets its generated schema with the rule's keywords on top (last, so that
        // they win over what the type itself generates: a map's value schema, a list's items)
        b.forFields().withCustomDefinitionProvider(new CustomPropertyDefinitionProvider<FieldScope>() {
            @Override
            public CustomPropertyDefinition provideCustomSchemaDefinition(FieldScope field, SchemaGenerationContext context) {
                SchemaKeywords.From from = field.getAnnotationConsideringFieldAndGetter(SchemaKeywords.From.class);
                if (from == null || field.isFakeContainerItemScope()) return null;
                ObjectNode node = context.createStandardDefinition(field, this);
                from.value().apply(node, config);
                return new CustomPropertyDefinition(node, CustomDefinition.AttributeInclusion.NO);
            }
        });
        // properties in the records' declaration order (the default sorts them by name)
        b.forTypesInGeneral().withPropertySorter((a, c) -> 0);
        // a map is an object of values, described where it is used: as a component, its value schema could not be
        // narrowed (or widened, as question metadata is) by the component that holds it
        b.forTypesInGeneral().withCustomDefinitionProvider(new CustomDefinitionProviderV2() {
            @Override
            public CustomDefinition provideCustomSchemaDefinition(ResolvedType type, SchemaGenerationContext context) {
                if (!type.isInstanceOf(Map.class)) return null;
                return new CustomDefinition(context.createStandardDefinition(type, this), CustomDefinition.DefinitionType.INLINE,
                        CustomDefinition.AttributeInclusion.NO);
            }
        });
        return new SchemaGenerator(b.build());
    }

    /**
     * Required: what a record's {@code @Schema} says; unannotated, what {@link #ALWAYS_PRESENT} lists and every primitive
     * (the codec leaves out nulls only, and a primitive is never null).
     */
    private static boolean required(FieldScope field) {
        Schema schema = field.getAnnotationConsideringFieldAndGetter(Schema.class);
        if (schema != null && schema.requiredMode() != Schema.RequiredMode.AUTO) return schema.requiredMode() == Schema.RequiredMode.REQUIRED;
        if (ALWAYS_PRESENT.getOrDefault(field.getDeclaringType().getErasedType(), Set.of()).contains(field.getName())) return true;
        return field.getType() != null && field.getType().isPrimitive();
    }

    private static ObjectNode sorted(ObjectNode node) {
        ObjectNode out = JSON.objectNode();
        new TreeSet<>(iterable(node)).forEach(name -> out.set(name, node.get(name)));
        return out;
    }

    private static List<String> iterable(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }

    private static Map<String, String> orderedMap(String... keysAndValues) {
        Map<String, String> out = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) out.put(keysAndValues[i], keysAndValues[i + 1]);
        return java.util.Collections.unmodifiableMap(out);
    }

    private static String description(boolean keys) {
        return "Errors are JSON `{error, message, field?, line?}`, every one of them (schema Refusal): 400 invalid_request, 401, 403, "
                + "404 not_found (unknown paths too), 405 method_not_allowed, 409, 413 too_large, 415 unsupported_media_type, 431, "
                + "500 internal_error, 503 unavailable, including what the HTTP server refuses before routing.\n\n"
                + "Bodies are read as streams and counted: a JSON body over SQLOOP_GATEWAY_MAX_BODY_BYTES or a batch over "
                + "SQLOOP_GATEWAY_MAX_BATCH_BYTES is a 413 as soon as the limit is crossed, with or without Content-Length. JSON "
                + "is strict: one value per body (trailing tokens are a 400), no duplicate keys, valid UTF-8 only, unknown fields "
                + "refused.\n\n"
                + "Query parameters are read only by GET /v1/examples; on any other /v1 operation a query parameter is a 400 "
                + "naming it. Only the request line's method is acted on: a method override (the X-HTTP-Method-Override, "
                + "X-HTTP-Method or X-Method-Override header, a _method query parameter or form field) is a 400 naming it, on "
                + "every path.\n\n"
                + (keys ? "Authentication: an API key in X-API-Key or Authorization: Bearer; each key names a tenant, and another "
                        + "tenant's ids answer 404. /healthy, /ready, /metrics and /openapi.json need no key."
                        : "Authentication is off on this gateway (SQLOOP_GATEWAY_API_KEYS is empty): every caller is tenant default.")
                + "\n\nExamples belong to tenants: the examples a tenant posted, saved by feedback or had captured from its own "
                + "questions are its own; seeds and examples a curator shared are seen by every tenant of the datasource. A tenant "
                + "changes or deletes only its own; curators (SQLOOP_GATEWAY_CURATORS) change any and list every example. Example "
                + "changes are commands the fewshot service applies: a 202 appears in GET /v1/examples, and in retrieval, moments "
                + "later.\n\n"
                + "This document is generated from the gateway's routes and records, with this gateway's limits and datasources.";
    }
}
