package dev.sqloop.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.JsonCodec;
import java.util.List;
import org.junit.jupiter.api.Test;

class ExampleRequestTest {

    private static ExampleRequest parse(String json) throws Exception {
        return ExampleRequest.parse(JsonCodec.mapper().readTree(json), ExampleQueryTest.CONFIG);
    }

    @Test
    void shouldAcceptAnExampleWithNotesAndDistinctTags() throws Exception {
        ExampleRequest r = parse("{\"question\":\"  Urgent orders? \",\"datasource\":\"demo\",\"sql\":\"SELECT count(*) FROM orders;\","
                + "\"notes\":\" priority 1 \",\"tags\":[\"kpi\",\"kpi\",\"orders\"]}");
        assertEquals("Urgent orders?", r.question());
        assertEquals("SELECT count(*) FROM orders;", r.sql());
        assertEquals("priority 1", r.notes());
        assertEquals(List.of("kpi", "orders"), r.tags());
    }

    @Test
    void shouldRefuseEachBadFieldWithItsName() {
        String q = "\"question\":\"q\",\"datasource\":\"demo\"";
        String[][] cases = {
                {"{\"question\":\"\",\"datasource\":\"demo\",\"sql\":\"SELECT 1\"}", "question", "empty"},
                {"{\"question\":\"" + "x".repeat(2001) + "\",\"datasource\":\"demo\",\"sql\":\"SELECT 1\"}", "question", "longer"},
                {"{\"question\":7,\"datasource\":\"demo\",\"sql\":\"SELECT 1\"}", "question", "string"},
                {"{\"datasource\":\"demo\",\"sql\":\"SELECT 1\"}", "question", "required"},
                {"{\"question\":\"q\",\"datasource\":\"nope\",\"sql\":\"SELECT 1\"}", "datasource", "unknown datasource"},
                {"{" + q + "}", "sql", "required"},
                {"{" + q + ",\"sql\":\"  \"}", "sql", "empty"},
                {"{" + q + ",\"sql\":\"" + "x".repeat(20_001) + "\"}", "sql", "longer"},
                {"{" + q + ",\"sql\":\"DELETE FROM orders\"}", "sql", "read-only query"},
                {"{" + q + ",\"sql\":\"SELECT 1; SELECT 2\"}", "sql", "more than one statement"},
                {"{" + q + ",\"sql\":\"SELECT 1\",\"notes\":5}", "notes", "notes"},
                {"{" + q + ",\"sql\":\"SELECT 1\",\"tags\":\"kpi\"}", "tags", "array"},
                {"{" + q + ",\"sql\":\"SELECT 1\",\"tags\":[\"\"]}", "tags", "array"},
                {"{" + q + ",\"sql\":\"SELECT 1\",\"id\":\"mine\"}", "id", "unknown field"},
                {"{" + q + ",\"sql\":7}", "sql", "must be a string"},
                {"{" + q + ",\"sql\":\"SELECT 1\",\"shared\":\"yes\"}", "shared", "true or false"}};
        for (String[] c : cases) {
            ApiError e = assertThrows(ApiError.class, () -> parse(c[0]), c[0].substring(0, Math.min(80, c[0].length())));
            assertEquals(c[1], e.body().field(), c[0].substring(0, Math.min(80, c[0].length())));
            assertTrue(e.getMessage().contains(c[2]), e.getMessage());
        }
    }

    @Test
    void shouldReadSharedAsFalseUnlessAskedFor() throws Exception {
        assertEquals(false, parse("{\"question\":\"q\",\"datasource\":\"demo\",\"sql\":\"SELECT 1\"}").shared());
        assertEquals(true, parse("{\"question\":\"q\",\"datasource\":\"demo\",\"sql\":\"SELECT 1\",\"shared\":true}").shared());
    }
}
