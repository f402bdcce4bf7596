package dev.sqloop.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.JsonCodec;
import org.junit.jupiter.api.Test;

class FeedbackRequestTest {

    private static FeedbackRequest parse(String json) throws Exception {
        return FeedbackRequest.parse(JsonCodec.mapper().readTree(json), ExampleQueryTest.CONFIG);
    }

    @Test
    void shouldAcceptEachActionWithOrWithoutSql() throws Exception {
        assertEquals(new FeedbackRequest("save", null), parse("{\"action\":\"save\"}"));
        assertEquals(new FeedbackRequest("save", "SELECT 1"), parse("{\"action\":\"save\",\"sql\":\" SELECT 1 \"}"));
        assertEquals(new FeedbackRequest("unsave", null), parse("{\"action\":\"unsave\",\"sql\":null}"));
        assertNull(parse("{\"action\":\"mark-wrong\"}").sql());
        assertTrue(parse("{\"action\":\"save\"}").saves());
        assertEquals("DELETE FROM orders", parse("{\"action\":\"save\",\"sql\":\"DELETE FROM orders\"}").sql(),
                "parsed in the question's dialect later, not here");
    }

    @Test
    void shouldRefuseEachBadFieldWithItsName() {
        String[][] cases = {
                {"[]", null, "JSON object"},
                {"{}", "action", "one of [save, unsave, mark-wrong]"},
                {"{\"action\":\"praise\"}", "action", "one of"},
                {"{\"action\":7}", "action", "one of"},
                {"{\"action\":\"save\",\"why\":\"x\"}", "why", "unknown field"},
                {"{\"action\":\"save\",\"sql\":5}", "sql", "must be a string"},
                {"{\"action\":\"save\",\"sql\":\"  \"}", "sql", "empty"},
                {"{\"action\":\"save\",\"sql\":\"" + "x".repeat(20_001) + "\"}", "sql", "longer"},
        };
        // whether the SQL is one read-only query is checked against the question's dialect once it is found
        // (FeedbackEndpoints through ExampleSql; ExamplesApiIT sends such saves to the running gateway)
        for (String[] c : cases) {
            ApiError e = assertThrows(ApiError.class, () -> parse(c[0]), c[0]);
            assertEquals(400, e.status(), c[0]);
            assertEquals(c[1], e.body().field(), c[0]);
            assertTrue(e.getMessage().contains(c[2]), c[0] + " → " + e.getMessage());
        }
    }
}
