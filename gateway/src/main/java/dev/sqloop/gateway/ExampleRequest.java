package dev.sqloop.gateway;

import static io.swagger.v3.oas.annotations.media.Schema.RequiredMode.NOT_REQUIRED;
import static io.swagger.v3.oas.annotations.media.Schema.RequiredMode.REQUIRED;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sqloop.gateway.SchemaKeywords.From;
import io.swagger.v3.oas.annotations.media.ArraySchema;
import io.swagger.v3.oas.annotations.media.Schema;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * One validated {@code POST /v1/examples} body: a question→SQL pair for a datasource, the caller's own example, or the
 * example shared with every tenant of the datasource when {@code shared} (only curators may ask for that).
 */
@Schema(description = "A question and its SQL for a datasource: the caller's own example, or (curators) the shared one")
public record ExampleRequest(
        @Schema(requiredMode = REQUIRED, minLength = 1, description = "at most SQLOOP_GATEWAY_MAX_QUESTION_CHARS")
        @From(SchemaKeywords.QUESTION_CHARS) String question,
        @Schema(requiredMode = REQUIRED, description = "one of GET /v1/datasources") @From(SchemaKeywords.DATASOURCE) String datasource,
        @Schema(requiredMode = REQUIRED, minLength = 1, description = "exactly one read-only query in the datasource's dialect, as "
                + "the validator parses it; at most SQLOOP_GATEWAY_MAX_SQL_CHARS") @From(SchemaKeywords.SQL_CHARS) String sql,
        @Schema(maxLength = ExampleRequest.MAX_NOTES_CHARS) String notes,
        @ArraySchema(maxItems = ExampleRequest.MAX_TAGS, schema = @Schema(minLength = 1, maxLength = ExampleRequest.MAX_TAG_CHARS))
        List<String> tags,
        @Schema(requiredMode = NOT_REQUIRED, description = "curators only: the example every tenant of the datasource sees, "
                + "instead of the caller's own; default false") boolean shared) {
    static final int MAX_NOTES_CHARS = 2000;
    static final int MAX_TAGS = 20;
    static final int MAX_TAG_CHARS = 50;
    private static final Set<String> KNOWN_FIELDS = Arrays.stream(ExampleRequest.class.getRecordComponents())
            .map(RecordComponent::getName).collect(Collectors.toUnmodifiableSet());

    /** Validates a JSON object; every refusal names the field. */
    public static ExampleRequest parse(JsonNode node, GatewayConfig config) {
        if (node == null || !node.isObject()) throw ApiError.badRequest("an example must be a JSON object", null);
        node.fieldNames().forEachRemaining(name -> {
            if (!KNOWN_FIELDS.contains(name)) throw ApiError.badRequest("unknown field '" + name + "'; known: " + new TreeSet<>(KNOWN_FIELDS), name);
        });
        String question = text(node, "question", config.maxQuestionChars());
        if (question.chars().anyMatch(c -> c < 0x20 && c != '\n' && c != '\t' && c != '\r')) {
            throw ApiError.badRequest("question contains control characters", "question");
        }
        JsonNode ds = node.get("datasource");
        if (ds == null || ds.isNull()) throw ApiError.badRequest("datasource is required", "datasource");
        if (!ds.isTextual() || !config.datasources().containsKey(ds.asText())) {
            throw ApiError.badRequest("unknown datasource '" + ds.asText() + "'; known: " + new TreeSet<>(config.datasources().keySet()), "datasource");
        }
        String sql = ExampleSql.fromJson(node.get("sql"), "sql", config.datasources().get(ds.asText()), config);
        JsonNode sh = node.get("shared");
        if (sh != null && !sh.isNull() && !sh.isBoolean()) throw ApiError.badRequest("shared must be true or false", "shared");
        boolean shared = sh != null && sh.asBoolean(false);
        String notes = null;
        JsonNode n = node.get("notes");
        if (n != null && !n.isNull()) {
            if (!n.isTextual() || n.asText().length() > MAX_NOTES_CHARS) {
                throw ApiError.badRequest("notes must be a string of at most " + MAX_NOTES_CHARS + " characters", "notes");
            }
            notes = n.asText().strip().isEmpty() ? null : n.asText().strip();
        }
        return new ExampleRequest(question, ds.asText(), sql, notes, tags(node.get("tags")), shared);
    }

    private static String text(JsonNode node, String field, int maxChars) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) throw ApiError.badRequest(field + " is required", field);
        if (!v.isTextual()) throw ApiError.badRequest(field + " must be a string", field);
        String s = v.asText().strip();
        if (s.isEmpty()) throw ApiError.badRequest(field + " must not be empty", field);
        if (s.length() > maxChars) throw ApiError.badRequest(field + " is longer than " + maxChars + " characters", field);
        return s;
    }

    private static List<String> tags(JsonNode t) {
        if (t == null || t.isNull()) return List.of();
        String rule = "tags must be an array of at most " + MAX_TAGS + " non-empty strings of at most " + MAX_TAG_CHARS + " characters";
        if (!t.isArray() || t.size() > MAX_TAGS) throw ApiError.badRequest(rule, "tags");
        Set<String> out = new LinkedHashSet<>();
        for (JsonNode tag : t) {
            String s = tag.isTextual() ? tag.asText().strip() : "";
            if (s.isEmpty() || s.length() > MAX_TAG_CHARS || s.chars().anyMatch(c -> c < 0x20)) throw ApiError.badRequest(rule, "tags");
            out.add(s);
        }
        return new ArrayList<>(out);
    }
}
