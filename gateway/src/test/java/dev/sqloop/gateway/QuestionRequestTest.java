package dev.sqloop.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.JsonCodec;
import org.junit.jupiter.api.Test;

/** A question's own fields beside its text: the asker's instructions, and capture off (what eval submits). */
class QuestionRequestTest {
    private static QuestionRequest parse(String json) throws Exception {
        return QuestionRequest.parse(JsonCodec.mapper().readTree(json), ExampleQueryTest.CONFIG);
    }

    @Test
    void shouldCarryInstructionsAndCaptureOff() throws Exception {
        QuestionRequest r = parse("{\"question\":\"Who works for Acme?\",\"datasource\":\"demo\","
                + "\"instructions\":\"  Always filter names using ILIKE \",\"capture\":false}");
        assertEquals("Always filter names using ILIKE", r.instructions());
        assertEquals(Boolean.FALSE, r.capture());
        QuestionRequest plain = parse("{\"question\":\"q\",\"datasource\":\"demo\"}");
        assertNull(plain.instructions());
        assertNull(plain.capture(), "captured as usual unless said otherwise");
        assertNull(parse("{\"question\":\"q\",\"datasource\":\"demo\",\"instructions\":\"  \"}").instructions());
    }

    @Test
    void shouldCarryTheCandidatesAskedForIntoTheTask() throws Exception {
        QuestionRequest r = parse("{\"question\":\"q\",\"datasource\":\"demo\",\"candidates\":3}");
        assertEquals(3, r.candidates());
        assertNull(parse("{\"question\":\"q\",\"datasource\":\"demo\"}").candidates(), "absent: the datasource's setting");
        assertEquals(9, parse("{\"question\":\"q\",\"datasource\":\"demo\",\"candidates\":9}").candidates());
    }

    @Test
    void shouldRefuseBadInstructionsAndCaptureByName() {
        String q = "\"question\":\"q\",\"datasource\":\"demo\"";
        String[][] cases = {
                {"{" + q + ",\"instructions\":7}", "instructions", "string"},
                {"{" + q + ",\"instructions\":\"" + "x".repeat(2001) + "\"}", "instructions", "longer"},
                {"{" + q + ",\"instructions\":\"a\\u0001b\"}", "instructions", "control characters"},
                {"{" + q + ",\"capture\":\"no\"}", "capture", "true or false"},
                {"{" + q + ",\"candidates\":0}", "candidates", "between 1 and 9"},
                {"{" + q + ",\"candidates\":10}", "candidates", "between 1 and 9"},
                {"{" + q + ",\"candidates\":2.5}", "candidates", "between 1 and 9"},
                {"{" + q + ",\"candidates\":\"3\"}", "candidates", "between 1 and 9"}};
        for (String[] c : cases) {
            ApiError e = assertThrows(ApiError.class, () -> parse(c[0]), c[0].substring(0, Math.min(80, c[0].length())));
            assertEquals(c[1], e.body().field());
            assertTrue(e.getMessage().contains(c[2]), e.getMessage());
        }
    }
}
