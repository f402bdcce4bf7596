package dev.sqloop.gateway;

import static io.swagger.v3.oas.annotations.media.Schema.RequiredMode.NOT_REQUIRED;
import static io.swagger.v3.oas.annotations.media.Schema.RequiredMode.REQUIRED;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sqloop.common.datasource.Datasources;
import dev.sqloop.gateway.SchemaKeywords.From;
import io.swagger.v3.oas.annotations.media.Schema;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/** One validated question submission; its components are the JSON fields a submission may have, and no others. */
@Schema(description = "One question, on its own (POST /v1/questions) or as a batch's element or line")
public record QuestionRequest(
        @Schema(requiredMode = REQUIRED, minLength = 1, description = "the question in natural language, without control "
                + "characters; at most SQLOOP_GATEWAY_MAX_QUESTION_CHARS") @From(SchemaKeywords.QUESTION_CHARS) String question,
        @Schema(requiredMode = REQUIRED, description = "one of GET /v1/datasources") @From(SchemaKeywords.DATASOURCE) String datasource,
        @Schema(requiredMode = NOT_REQUIRED, minimum = "1", description = "attempts the pipeline may make; default "
                + "SQLOOP_MAX_ATTEMPTS, at most SQLOOP_GATEWAY_MAX_ATTEMPTS_LIMIT") @From(SchemaKeywords.ATTEMPTS) int maxAttempts,
        @Schema(minLength = 1, maxLength = 200, description = "POST /v1/questions: an idempotency key per tenant, submitting it "
                + "again answers the existing question (200). In a batch: unique within the batch (a repeat is a 400 with its "
                + "line), scoped to the batch") String clientId,
        @Schema(description = "the caller's own labels, carried with the question and its result (a number or boolean "
                + "value is accepted and kept as its text)") @From(SchemaKeywords.METADATA)
        Map<String, String> metadata,
        @Schema(minLength = 1, description = "what the asker says with the question (a definition, a convention), shown to the LLM "
                + "beside it on every attempt; at most SQLOOP_GATEWAY_MAX_QUESTION_CHARS") @From(SchemaKeywords.QUESTION_CHARS)
        String instructions,
        @Schema(description = "false: a success is not captured into the example memory (eval leaves memory as it found it); "
                + "absent: captured") Boolean capture,
        @Schema(minimum = "1", maximum = "" + Datasources.MAX_CANDIDATES, description = "candidate SQL answers to ask for and choose among by their results "
                + "(issue 50), overriding the datasource's SQLOOP_DATASOURCE_<NAME>_CANDIDATES for this question; give it on "
                + "every element of a batch to set it for the batch; absent: the datasource's setting") Integer candidates) {
    static final int MAX_METADATA_ENTRIES = 32;
    static final int MAX_METADATA_KEY_CHARS = 100;
    static final int MAX_METADATA_VALUE_CHARS = 1000;
    private static final Set<String> KNOWN_FIELDS = Arrays.stream(QuestionRequest.class.getRecordComponents())
            .map(RecordComponent::getName).collect(Collectors.toUnmodifiableSet());

    /** Validates a JSON object; every refusal names the field. */
    public static QuestionRequest parse(JsonNode node, GatewayConfig config) {
        if (node == null || !node.isObject()) throw ApiError.badRequest("a question must be a JSON object", null);
        node.fieldNames().forEachRemaining(name -> {
            if (!KNOWN_FIELDS.contains(name)) throw ApiError.badRequest("unknown field '" + name + "'", name);
        });
        JsonNode q = node.get("question");
        if (q == null || q.isNull()) throw ApiError.badRequest("question is required", "question");
        if (!q.isTextual()) throw ApiError.badRequest("question must be a string", "question");
        String question = q.asText().strip();
        if (question.isEmpty()) throw ApiError.badRequest("question must not be empty", "question");
        if (question.length() > config.maxQuestionChars()) {
            throw ApiError.badRequest("question is longer than " + config.maxQuestionChars() + " characters", "question");
        }
        if (question.chars().anyMatch(c -> c < 0x20 && c != '\n' && c != '\t' && c != '\r')) {
            throw ApiError.badRequest("question contains control characters", "question");
        }
        JsonNode ds = node.get("datasource");
        if (ds == null || ds.isNull()) throw ApiError.badRequest("datasource is required", "datasource");
        if (!ds.isTextual() || !config.datasources().containsKey(ds.asText())) {
            throw ApiError.badRequest("unknown datasource '" + ds.asText() + "'; known: " + new java.util.TreeSet<>(config.datasources().keySet()), "datasource");
        }
        int maxAttempts = config.defaultMaxAttempts();
        JsonNode ma = node.get("maxAttempts");
        if (ma != null && !ma.isNull()) {
            if (!ma.isInt() || ma.asInt() < 1 || ma.asInt() > config.maxAttemptsLimit()) {
                throw ApiError.badRequest("maxAttempts must be an integer between 1 and " + config.maxAttemptsLimit(), "maxAttempts");
            }
            maxAttempts = ma.asInt();
        }
        String clientId = null;
        JsonNode cid = node.get("clientId");
        if (cid != null && !cid.isNull()) {
            if (!cid.isTextual() || cid.asText().isBlank() || cid.asText().length() > 200) {
                throw ApiError.badRequest("clientId must be a non-empty string of at most 200 characters", "clientId");
            }
            clientId = cid.asText();
        }
        Map<String, String> metadata = new LinkedHashMap<>();
        JsonNode md = node.get("metadata");
        if (md != null && !md.isNull()) {
            if (!md.isObject()) throw ApiError.badRequest("metadata must be an object of strings", "metadata");
            if (md.size() > MAX_METADATA_ENTRIES) throw ApiError.badRequest("metadata has more than " + MAX_METADATA_ENTRIES + " entries", "metadata");
            md.fields().forEachRemaining(e -> {
                if (!e.getValue().isValueNode() || e.getValue().asText().length() > MAX_METADATA_VALUE_CHARS
                        || e.getKey().length() > MAX_METADATA_KEY_CHARS) {
                    throw ApiError.badRequest("metadata values must be short strings, numbers or booleans", "metadata." + e.getKey());
                }
                metadata.put(e.getKey(), e.getValue().asText());
            });
        }
        String instructions = null;
        JsonNode in = node.get("instructions");
        if (in != null && !in.isNull()) {
            if (!in.isTextual()) throw ApiError.badRequest("instructions must be a string", "instructions");
            instructions = in.asText().strip();
            // instructions go into the prompt beside the question: the same bounds as the question
            if (instructions.length() > config.maxQuestionChars()) {
                throw ApiError.badRequest("instructions are longer than " + config.maxQuestionChars() + " characters", "instructions");
            }
            if (instructions.chars().anyMatch(c -> c < 0x20 && c != '\n' && c != '\t' && c != '\r')) {
                throw ApiError.badRequest("instructions contain control characters", "instructions");
            }
            if (instructions.isEmpty()) instructions = null;
        }
        Boolean capture = null;
        JsonNode cap = node.get("capture");
        if (cap != null && !cap.isNull()) {
            if (!cap.isBoolean()) throw ApiError.badRequest("capture must be true or false", "capture");
            capture = cap.asBoolean();
        }
        Integer candidates = null;
        JsonNode cand = node.get("candidates");
        if (cand != null && !cand.isNull()) {
            // the same bound as the datasource setting: each candidate is one more LLM call and one more query
            if (!cand.isInt() || cand.asInt() < 1 || cand.asInt() > Datasources.MAX_CANDIDATES) {
                throw ApiError.badRequest("candidates must be an integer between 1 and " + Datasources.MAX_CANDIDATES, "candidates");
            }
            candidates = cand.asInt();
        }
        return new QuestionRequest(question, ds.asText(), maxAttempts, clientId, metadata, instructions, capture, candidates);
    }
}
