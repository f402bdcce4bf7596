package dev.sqloop.gateway;

import io.javalin.Javalin;
import io.javalin.http.Handler;
import io.javalin.http.HandlerType;
import io.javalin.router.Endpoint;
import io.javalin.router.EndpointMetadata;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * The OpenAPI description of one route, attached to its Javalin endpoint as metadata by {@link #route}: the document
 * ({@link OpenApiDocument}) is read off the router, so a route is registered together with its description, and the
 * two never disagree on a path or a method (the hand-kept document had "cancel a batch" on {@code DELETE /v1/examples}).
 * Bodies name the record the handler reads or answers; its schema is generated from that record.
 *
 * @param requestBody media type → what the body holds; empty when the operation reads none
 * @param answers status → answer, in the order they were declared
 */
record ApiOperation(String operationId, String tag, String summary, String description, List<QueryParameter> query,
                    Map<String, Content> requestBody, boolean bodyRequired, Map<Integer, Answer> answers)
        implements EndpointMetadata {
    static final String JSON = "application/json";
    static final String NDJSON = "application/x-ndjson";

    /**
     * A body of one media type: a JSON value of {@code type}, or with {@code lines} one JSON value of {@code type} per
     * line (NDJSON, which OpenAPI 3.1 cannot describe itself: the document gives its line schema in {@code
     * x-sqloop-line-schema}).
     */
    record Content(String mediaType, Class<?> type, boolean lines) {}

    /** One documented status; {@code content} empty for an answer without a body. */
    record Answer(String description, List<Content> content) {}

    /**
     * One query parameter.
     *
     * @param schema the JSON Schema of its value, in JSON Schema keywords
     */
    record QueryParameter(String name, String description, Map<String, Object> schema) {}

    /** What a refusal with a standard status means, when an operation says no more. */
    static final Map<Integer, String> REFUSALS = Map.ofEntries(
            Map.entry(400, "invalid_request: the body, a query parameter or a header is refused; `message` says why, `field` (and "
                    + "`line` in a batch) where"),
            Map.entry(401, "unauthorized: no API key or an unknown one (X-API-Key or Authorization: Bearer)"),
            Map.entry(403, "forbidden: the caller's tenant may not do this"),
            Map.entry(404, "not_found: no such id for the caller's tenant (another tenant's ids answer the same)"),
            Map.entry(409, "the resource's state does not allow it; `error` says which state"),
            Map.entry(413, "too_large: the body (SQLOOP_GATEWAY_MAX_BODY_BYTES, batches SQLOOP_GATEWAY_MAX_BATCH_BYTES), a batch "
                    + "line or element (SQLOOP_GATEWAY_MAX_LINE_BYTES) or the batch's question count (SQLOOP_GATEWAY_MAX_BATCH) is over "
                    + "its limit; refused while reading, the connection is then closed"),
            Map.entry(415, "unsupported_media_type: the Content-Type is missing or not one the operation reads"),
            Map.entry(503, "unavailable: the queue did not accept the request, or the results are being rebalanced; retry shortly"));

    /**
     * Registers {@code handler} for {@code method path} with the operation {@code describe} builds: the only way the
     * gateway adds a route (a route added otherwise is refused when the document is built, see {@link OpenApiDocument}).
     */
    static void route(Javalin app, HandlerType method, String path, Handler handler, UnaryOperator<Builder> describe) {
        ApiOperation operation = describe.apply(new Builder()).build();
        app.addEndpoint(new Endpoint(method, path, Set.<EndpointMetadata>of(operation), handler));
    }

    /** Collects an operation's description; {@code operationId}, {@code tag} and {@code summary} are required. */
    static final class Builder {
        private String operationId;
        private String tag;
        private String summary;
        private String description;
        private List<QueryParameter> query = List.of();
        private final Map<String, Content> requestBody = new LinkedHashMap<>();
        private boolean bodyRequired = true;
        private final Map<Integer, Answer> answers = new LinkedHashMap<>();

        Builder id(String operationId, String tag, String summary) {
            this.operationId = operationId;
            this.tag = tag;
            this.summary = summary;
            return this;
        }

        Builder description(String text) {
            this.description = text;
            return this;
        }

        Builder query(List<QueryParameter> parameters) {
            this.query = List.copyOf(parameters);
            return this;
        }

        /** A JSON body of {@code type}. */
        Builder body(Class<?> type) {
            requestBody.put(JSON, new Content(JSON, type, false));
            return this;
        }

        Builder body(String mediaType, Class<?> type, boolean lines) {
            requestBody.put(mediaType, new Content(mediaType, type, lines));
            return this;
        }

        /** The body may be left out (an empty body reads as the defaults). */
        Builder bodyOptional() {
            this.bodyRequired = false;
            return this;
        }

        /** A JSON answer of {@code type}. */
        Builder answers(int status, String description, Class<?> type) {
            return answers(status, description, JSON, type, false);
        }

        Builder answers(int status, String description, String mediaType, Class<?> type, boolean lines) {
            put(status, new Answer(description, List.of(new Content(mediaType, type, lines))));
            return this;
        }

        /** Refusals with the standard meaning of each status ({@link #REFUSALS}). */
        Builder refuses(int... statuses) {
            for (int status : statuses) refuses(status, Objects.requireNonNull(REFUSALS.get(status), "no standard refusal " + status));
            return this;
        }

        /** A refusal (the JSON error body, {@link ApiError.Refusal}) and what it means here. */
        Builder refuses(int status, String description) {
            put(status, new Answer(description, List.of(new Content(JSON, ApiError.Refusal.class, false))));
            return this;
        }

        private void put(int status, Answer answer) {
            if (answers.putIfAbsent(status, answer) != null) throw new IllegalStateException(operationId + ": status " + status + " twice");
        }

        ApiOperation build() {
            Objects.requireNonNull(operationId, "operationId");
            Objects.requireNonNull(tag, "tag");
            Objects.requireNonNull(summary, "summary");
            if (answers.keySet().stream().noneMatch(s -> s < 300)) throw new IllegalStateException(operationId + " documents no success");
            return new ApiOperation(operationId, tag, summary, description, query,
                    java.util.Collections.unmodifiableMap(new LinkedHashMap<>(requestBody)), bodyRequired,
                    java.util.Collections.unmodifiableMap(new LinkedHashMap<>(answers)));
        }
    }
}
