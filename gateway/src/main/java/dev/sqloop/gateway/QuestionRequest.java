package dev.sqloop.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/** One validated question submission. */
public record QuestionRequest(String question, String datasource, int maxAttempts, String clientId, Map<String, String> metadata) {
    private static final Set<String> KNOWN_FIELDS = Set.of("question", "datasource", "maxAttempts", "clientId", "metadata");

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
            if (md.size() > 32) throw ApiError.badRequest("metadata has more than 32 entries", "metadata");
            md.fields().forEachRemaining(e -> {
                if (!e.getValue().isValueNode() || e.getValue().asText().length() > 1000 || e.getKey().length() > 100) {
                    throw ApiError.badRequest("metadata values must be short strings, numbers or booleans", "metadata." + e.getKey());
                }
                metadata.put(e.getKey(), e.getValue().asText());
            });
        }
        return new QuestionRequest(question, ds.asText(), maxAttempts, clientId, metadata);
    }
}
