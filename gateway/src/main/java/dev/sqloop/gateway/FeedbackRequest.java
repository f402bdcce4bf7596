package dev.sqloop.gateway;

import static io.swagger.v3.oas.annotations.media.Schema.RequiredMode.REQUIRED;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sqloop.gateway.SchemaKeywords.From;
import io.swagger.v3.oas.annotations.media.Schema;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * One validated {@code POST /v1/questions/{id}/feedback} body.
 *
 * @param sql the SQL to save instead of the question's own (checked to be one read-only query of the question's datasource
 *            by {@link ExampleSql} once the question is found); null to use the question's
 */
@Schema(description = "Feedback on a question's SQL")
public record FeedbackRequest(
        @Schema(requiredMode = REQUIRED, allowableValues = {FeedbackRequest.SAVE, FeedbackRequest.UNSAVE, FeedbackRequest.MARK_WRONG})
        String action,
        @Schema(minLength = 1, description = "SQL to save instead of the question's own; for save it must be one read-only query "
                + "of the question's datasource's dialect") @From(SchemaKeywords.SQL_CHARS) String sql) {
    public static final String SAVE = "save";
    public static final String UNSAVE = "unsave";
    public static final String MARK_WRONG = "mark-wrong";
    /** In the order the API documents them. */
    static final List<String> ACTIONS = List.of(SAVE, UNSAVE, MARK_WRONG);
    private static final Set<String> KNOWN_FIELDS = Arrays.stream(FeedbackRequest.class.getRecordComponents())
            .map(RecordComponent::getName).collect(Collectors.toUnmodifiableSet());

    /** Validates a JSON object; every refusal names the field. */
    public static FeedbackRequest parse(JsonNode node, GatewayConfig config) {
        if (node == null || !node.isObject()) throw ApiError.badRequest("feedback must be a JSON object", null);
        node.fieldNames().forEachRemaining(name -> {
            if (!KNOWN_FIELDS.contains(name)) throw ApiError.badRequest("unknown field '" + name + "'; known: " + new TreeSet<>(KNOWN_FIELDS), name);
        });
        JsonNode a = node.get("action");
        String action = a != null && a.isTextual() ? a.asText() : "";
        if (!ACTIONS.contains(action)) throw ApiError.badRequest("action must be one of " + ACTIONS, "action");
        String sql = null;
        JsonNode s = node.get("sql");
        if (s != null && !s.isNull()) {
            if (!s.isTextual()) throw ApiError.badRequest("sql must be a string", "sql");
            // whether it is one read-only query is checked once the question, so its datasource's dialect, is known
            sql = ExampleSql.bounded(s.asText(), "sql", config);
        }
        return new FeedbackRequest(action, sql);
    }

    boolean saves() {
        return SAVE.equals(action);
    }
}
