package dev.sqloop.common.message;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.error.ErrorCategory;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class QuestionResultTest {
    private static final Instant NOW = Instant.parse("2026-11-23T22:00:00Z");

    private static QuestionTask task(String sql) {
        return QuestionTask.create("q1", "acme", "demo", "how many rivers?", 3, NOW).withSql(sql, null);
    }

    @Test
    void shouldCarryTheRefusedSqlOnlyAsLastRejectedSql() throws Exception {
        QuestionResult failed = QuestionResult.failed(task("DROP TABLE river"), "max_attempts", ErrorCategory.READ_ONLY_VIOLATION, "writes", NOW);
        assertNull(failed.sql(), "a consumer that runs each result's sql must never run a refused statement");
        assertEquals("DROP TABLE river", failed.lastRejectedSql());
        String json = JsonCodec.encodeToString(failed);
        assertFalse(json.contains("\"sql\":\"DROP"), json);
        assertTrue(json.contains("\"lastRejectedSql\":\"DROP TABLE river\""), json);
        assertEquals(failed, JsonCodec.decode(json.getBytes(StandardCharsets.UTF_8), QuestionResult.class));

        QuestionResult ok = QuestionResult.succeeded(task("SELECT count(*) FROM river"), NOW);
        assertEquals("SELECT count(*) FROM river", ok.sql());
        assertNull(ok.lastRejectedSql());
    }

    @Test
    void shouldMoveSqlOfAFailureBuiltDirectlyOrDecodedFromAnOldRecord() throws Exception {
        String old = "{\"questionId\":\"q\",\"status\":\"failed\",\"reason\":\"max_attempts\",\"sql\":\"DELETE FROM t\",\"attempts\":3}";
        QuestionResult r = JsonCodec.decode(old.getBytes(StandardCharsets.UTF_8), QuestionResult.class);
        assertNull(r.sql());
        assertEquals("DELETE FROM t", r.lastRejectedSql());
    }

    @Test
    void shouldKeepTheHintFlagOnTheWireAndReadOldIssuesAsErrors() throws Exception {
        Issue hint = Issue.hint("static-validate", ErrorCategory.CONSTRAINT_VIOLATION, "question asks for the top 5, SQL has no LIMIT", "LIMIT");
        assertEquals(hint, JsonCodec.decode(JsonCodec.encode(hint), Issue.class));
        Issue old = JsonCodec.decode("{\"stage\":\"x\",\"category\":\"column_not_found\",\"message\":\"m\"}".getBytes(StandardCharsets.UTF_8), Issue.class);
        assertTrue(old.error());
        assertEquals(List.of(), old.candidates());
    }
}
