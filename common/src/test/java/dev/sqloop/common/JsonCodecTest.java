package dev.sqloop.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.message.Issue;
import dev.sqloop.common.message.LinkedSchema;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.common.message.TokenUsage;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class JsonCodecTest {

    @Test
    void shouldRoundTripAQuestionTask() throws Exception {
        QuestionTask task = QuestionTask.create("q1", "acme", "demo", "how many orders?", 3, Instant.parse("2026-01-01T00:00:00Z"))
                .withSql("SELECT count(*) FROM orders", null)
                .withIssues(List.of(new Issue("validate", ErrorCategory.COLUMN_NOT_FOUND, "no column x", "x", List.of("y"))));
        QuestionTask back = JsonCodec.decode(JsonCodec.encode(task), QuestionTask.class);
        assertEquals(task, back);
        assertTrue(JsonCodec.encodeToString(task).contains("\"category\":\"column_not_found\""), "taxonomy on the wire in snake case");
    }

    @Test
    void shouldIgnoreUnknownFieldsForForwardCompatibility() throws Exception {
        String json = "{\"questionId\":\"q\",\"datasource\":\"d\",\"question\":\"x\",\"attempt\":1,\"maxAttempts\":3,\"fromTheFuture\":42}";
        QuestionTask t = JsonCodec.decode(json.getBytes(StandardCharsets.UTF_8), QuestionTask.class);
        assertEquals("q", t.questionId());
        assertEquals(1, t.schemaVersion(), "missing schema version reads as the current one");
    }

    @Test
    void shouldCarryTheDialectAndReadATaskWithoutOneFromAnOlderProducer() throws Exception {
        QuestionTask task = QuestionTask.create("q1", "acme", "demo", "x", 3, Instant.EPOCH).withDialect(Dialect.TRINO);
        assertTrue(JsonCodec.encodeToString(task).contains("\"dialect\":\"trino\""), JsonCodec.encodeToString(task));
        QuestionTask back = JsonCodec.decode(JsonCodec.encode(task), QuestionTask.class);
        assertEquals(Dialect.TRINO, back.dialect());
        assertEquals(Dialect.TRINO, back.withSql("SELECT 1", null).nextAttempt("fix").withTiming("x", 1).dialect(), "kept by every step");

        String older = "{\"questionId\":\"q\",\"datasource\":\"d\",\"question\":\"x\",\"attempt\":1,\"maxAttempts\":3}";
        assertEquals(null, JsonCodec.decode(older.getBytes(StandardCharsets.UTF_8), QuestionTask.class).dialect(),
                "no dialect: the stage falls back to its datasource settings");
    }

    @Test
    void shouldCarryCachedTokensCostAndAWholeSchemaAndReadThemAsZeroFromAnOlderProducer() throws Exception {
        QuestionTask task = QuestionTask.create("q1", "acme", "demo", "x", 3, Instant.EPOCH)
                .withContext(List.of(), new LinkedSchema(List.of(new LinkedSchema.Table("t", null, List.of())), true), null)
                .withSql("SELECT 1", new TokenUsage(1500, 20, 1152, 0.00042));
        QuestionTask back = JsonCodec.decode(JsonCodec.encode(task), QuestionTask.class);
        assertEquals(new TokenUsage(1500, 20, 1152, 0.00042), back.usage());
        assertTrue(back.linkedSchema().whole());

        String older = "{\"questionId\":\"q\",\"datasource\":\"d\",\"question\":\"x\",\"attempt\":1,\"maxAttempts\":3,"
                + "\"usage\":{\"inputTokens\":300,\"outputTokens\":12},\"linkedSchema\":{\"tables\":[{\"name\":\"t\"}]}}";
        QuestionTask old = JsonCodec.decode(older.getBytes(StandardCharsets.UTF_8), QuestionTask.class);
        assertEquals(new TokenUsage(300, 12, 0, 0), old.usage());
        assertEquals(false, old.linkedSchema().whole(), "a schema of unknown origin is read as this question's own");
    }

    @Test
    void shouldRejectMissingRequiredFieldsNamingThem() {
        String json = "{\"datasource\":\"d\",\"question\":\"x\",\"attempt\":1,\"maxAttempts\":3}";
        JsonCodec.DecodeException e = assertThrows(JsonCodec.DecodeException.class,
                () -> JsonCodec.decode(json.getBytes(StandardCharsets.UTF_8), QuestionTask.class));
        assertTrue(e.getMessage().contains("questionId"), e.getMessage());
    }

    @Test
    void shouldRejectTombstonesAndGarbage() {
        assertThrows(JsonCodec.DecodeException.class, () -> JsonCodec.decode(null, QuestionTask.class));
        assertThrows(JsonCodec.DecodeException.class, () -> JsonCodec.decode("null".getBytes(StandardCharsets.UTF_8), QuestionTask.class));
        assertThrows(JsonCodec.DecodeException.class, () -> JsonCodec.decode("[1,2".getBytes(StandardCharsets.UTF_8), QuestionTask.class));
    }

    @Test
    void shouldCarryHeadersDerivedFromTheTask() {
        QuestionTask t = QuestionTask.create("q1", "acme", "demo", "x", 3, Instant.now()).withSql("SELECT 1", null).nextAttempt("fix it");
        assertEquals("2", t.headers().get(SqloopHeaders.ATTEMPT));
        assertEquals("SELECT 1", t.headers().get(SqloopHeaders.PREVIOUS_SQL));
        assertEquals("acme", t.headers().get(SqloopHeaders.TENANT));
    }
}
