package dev.sqloop.common.message;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.error.ErrorCategory;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The linked schema's wire form: passed through as the bytes it came in, read only by a stage that asks. */
class LinkedSchemaJsonTest {
    static final LinkedSchema SCHEMA = new LinkedSchema(List.of(
            new LinkedSchema.Table("orders", "Purchases — “quoted”, ünïcode", List.of(
                    new LinkedSchema.Column("o_orderkey", "BIGINT", "", List.of()),
                    new LinkedSchema.Column("o_orderstatus", "VARCHAR", "F, O or P", List.of("F", "O", "P")))),
            new LinkedSchema.Table("customer", null, List.of(new LinkedSchema.Column("c_name", null, null, null)))));

    static QuestionTask task(LinkedSchema schema) {
        return QuestionTask.create("q1", "acme", "demo", "how many orders?", 3, Instant.parse("2026-01-01T00:00:00Z"))
                .withContext(List.of(new Example("q", "SELECT 1", 0.9, "seed")), schema, NlConstraints.NONE);
    }

    static byte[] bytes(String json) {
        return json.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void shouldRoundTripAndLeaveOutEmptyDescriptionsAndSampleLists() throws Exception {
        byte[] wire = JsonCodec.encode(task(SCHEMA));
        QuestionTask back = JsonCodec.decode(wire, QuestionTask.class);
        assertEquals(SCHEMA, back.linkedSchema());
        assertEquals(task(SCHEMA), back);
        assertEquals(SCHEMA.render(), back.linkedSchema().render());
        JsonNode c = JsonCodec.mapper().readTree(wire).at("/linkedSchema/tables/0/columns/0");
        assertEquals("{\"name\":\"o_orderkey\",\"type\":\"BIGINT\"}", c.toString(), "no empty description or samples on the wire");
        assertEquals("", back.linkedSchema().tables().get(1).description(), "a missing description reads as none");
    }

    @Test
    void shouldPassTheSchemaOnAsTheBytesItCameInIncludingFieldsThisVersionDoesNotKnow() throws Exception {
        String schema = "{\"tables\":[{\"name\":\"t\",\"foreignKeys\":[{\"to\":\"u\",\"on\":[\"a\"]}],\"columns\":[{\"name\":\"a\","
                + "\"type\":\"INT\",\"stats\":{\"ndv\":3}}]}],\"version\":2}";
        String json = "{\"questionId\":\"q\",\"datasource\":\"d\",\"question\":\"x\",\"attempt\":1,\"maxAttempts\":3,"
                + "\"linkedSchema\":" + schema + ",\"sql\":\"SELECT a FROM t\"}";
        QuestionTask read = JsonCodec.decode(bytes(json), QuestionTask.class);
        // what a validator or executor does: change the task, not the schema, and send it on
        QuestionTask passed = read.withIssues(List.of(Issue.of("validate", ErrorCategory.SYNTAX_ERROR, "bad"))).withTiming("x", 1);
        String out = JsonCodec.encodeToString(passed);
        assertTrue(out.contains("\"linkedSchema\":" + schema + ","), out);
        assertEquals(out, new String(JsonCodec.encode(passed), StandardCharsets.UTF_8), "the same from the string and the byte writer");
        assertEquals(List.of(new LinkedSchema.Table("t", "", List.of(new LinkedSchema.Column("a", "INT", "", List.of())))),
                JsonCodec.decode(bytes(out), QuestionTask.class).linkedSchema().tables(), "the known fields read as before");
    }

    @Test
    void shouldReadTheFormOlderProducersWriteWithEmptyAndNullFields() throws Exception {
        String json = "{\"questionId\":\"q\",\"datasource\":\"d\",\"question\":\"x\",\"attempt\":1,\"maxAttempts\":3,"
                + "\"linkedSchema\":{\"tables\":[{\"name\":\"orders\",\"description\":\"Purchases — “quoted”, ünïcode\",\"columns\":["
                + "{\"name\":\"o_orderkey\",\"type\":\"BIGINT\",\"description\":\"\",\"sampleValues\":[]},"
                + "{\"name\":\"o_orderstatus\",\"type\":\"VARCHAR\",\"description\":\"F, O or P\",\"sampleValues\":[\"F\",\"O\",\"P\"]}]},"
                + "{\"name\":\"customer\",\"description\":null,\"columns\":[{\"name\":\"c_name\",\"type\":null,\"sampleValues\":null}]}]}}";
        assertEquals(SCHEMA, JsonCodec.decode(bytes(json), QuestionTask.class).linkedSchema());
        // and the same JSON pretty-printed: the kept bytes are cut at the right places whatever the spacing
        String pretty = JsonCodec.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(JsonCodec.mapper().readTree(json));
        QuestionTask fromPretty = JsonCodec.decode(bytes(pretty), QuestionTask.class);
        assertEquals(SCHEMA, fromPretty.linkedSchema());
        assertEquals(SCHEMA, JsonCodec.decode(JsonCodec.encode(fromPretty), QuestionTask.class).linkedSchema());
    }

    @Test
    void shouldRejectASchemaOfTheWrongShapeWhenTheMessageIsReadNamingIt() {
        for (String schema : List.of("{\"tables\":5}", "{\"tables\":[{\"name\":{\"x\":1}}]}", "{\"tables\":[{\"columns\":{}}]}",
                "{\"tables\":[{\"columns\":[{\"sampleValues\":[[\"a\"]]}]}]}", "[1]", "\"TABLE t\"")) {
            String json = "{\"questionId\":\"q\",\"datasource\":\"d\",\"question\":\"x\",\"attempt\":1,\"maxAttempts\":3,\"linkedSchema\":" + schema + "}";
            JsonCodec.DecodeException e = assertThrows(JsonCodec.DecodeException.class,
                    () -> JsonCodec.decode(bytes(json), QuestionTask.class), schema);
            assertTrue(e.getMessage().contains("linkedSchema"), schema + " -> " + e.getMessage());
        }
        assertNull(assertDoesNotThrowDecode("{\"questionId\":\"q\",\"datasource\":\"d\",\"question\":\"x\",\"attempt\":1,"
                + "\"maxAttempts\":3,\"linkedSchema\":null}").linkedSchema());
        assertEquals(List.of(), assertDoesNotThrowDecode("{\"questionId\":\"q\",\"datasource\":\"d\",\"question\":\"x\",\"attempt\":1,"
                + "\"maxAttempts\":3,\"linkedSchema\":{\"tables\":null}}").linkedSchema().tables());
    }

    private static QuestionTask assertDoesNotThrowDecode(String json) {
        try {
            return JsonCodec.decode(bytes(json), QuestionTask.class);
        } catch (JsonCodec.DecodeException e) {
            throw new AssertionError(json + ": " + e.getMessage(), e);
        }
    }

    @Test
    void shouldPassOnASchemaLargerThanTheWritersBuffer() throws Exception {
        List<LinkedSchema.Table> tables = new ArrayList<>();
        for (int t = 0; t < 40; t++) {
            List<LinkedSchema.Column> columns = new ArrayList<>();
            for (int c = 0; c < 30; c++) columns.add(new LinkedSchema.Column("col_" + c + "_é", "VARCHAR", "the " + c + "th column", List.of("a", "b")));
            tables.add(new LinkedSchema.Table("table_" + t, "table № " + t, columns));
        }
        LinkedSchema big = new LinkedSchema(tables);
        byte[] first = JsonCodec.encode(task(big));
        assertTrue(first.length > 64_000, "larger than Jackson's output buffer: " + first.length);
        QuestionTask read = JsonCodec.decode(first, QuestionTask.class);
        byte[] again = JsonCodec.encode(read);
        assertArrayEquals(first, again, "written back byte for byte");
        assertEquals(big, JsonCodec.decode(again, QuestionTask.class).linkedSchema());
    }

    @Test
    void shouldBindWhereNoMessageBytesAreGivenOrTheParserIsBuffered() throws Exception {
        QuestionTask task = task(SCHEMA);
        String json = JsonCodec.encodeToString(task);
        // straight through the mapper (no source bytes): the schema is built at once
        assertEquals(task, JsonCodec.mapper().readValue(json, QuestionTask.class));
        // a tree and a token buffer (a read schema written into one, read back from it)
        QuestionTask read = JsonCodec.decode(bytes(json), QuestionTask.class);
        JsonNode tree = JsonCodec.mapper().valueToTree(read);
        assertEquals("o_orderstatus", tree.at("/linkedSchema/tables/0/columns/1/name").asText());
        assertEquals(task, JsonCodec.mapper().treeToValue(tree, QuestionTask.class));
        assertEquals(task, JsonCodec.mapper().convertValue(read, QuestionTask.class));
    }

    @Test
    void shouldCompareByTablesWhetherBuiltOrRead() throws Exception {
        LinkedSchema read = JsonCodec.decode(JsonCodec.encode(task(SCHEMA)), QuestionTask.class).linkedSchema();
        assertNotNull(read.json(), "a read schema keeps its bytes");
        assertNull(SCHEMA.json());
        assertEquals(SCHEMA.hashCode(), read.hashCode());
        assertEquals(SCHEMA.toString(), read.toString());
        assertFalse(read.equals(new LinkedSchema(List.of())));
        assertEquals(new LinkedSchema(null), new LinkedSchema(List.of()));
    }
}
