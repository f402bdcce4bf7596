package dev.sqloop.generator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sqloop.common.message.TokenUsage;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The Batch API's JSONL: the request line the online client would send, and output and error lines read back. */
class BatchLinesTest {
    @Test
    void shouldWriteTheSameChatRequestAsTheOnlineClient() throws Exception {
        String line = BatchLines.requestLine("0:q1", new LlmClient.Prompt("rules ", "schema", "the question", false),
                new BatchLines.RequestSettings("gpt-4o-mini", 0.0, 512, true));
        JsonNode n = new ObjectMapper().readTree(line);
        assertEquals("0:q1", n.path("custom_id").asText());
        assertEquals("POST", n.path("method").asText());
        assertEquals("/v1/chat/completions", n.path("url").asText());
        assertEquals("gpt-4o-mini", n.path("body").path("model").asText());
        assertEquals(512, n.path("body").path("max_tokens").asInt());
        assertEquals("rules schema", n.path("body").path("messages").path(0).path("content").asText());
        assertEquals("the question", n.path("body").path("messages").path(1).path("content").asText());
        assertEquals("json_object", n.path("body").path("response_format").path("type").asText());
    }

    @Test
    void shouldReadAnswersRefusalsAndExpiriesByCustomId() {
        String jsonl = """
                {"id":"r1","custom_id":"0:q1","response":{"status_code":200,"body":{"choices":[{"message":{"content":"{\\"sql\\":\\"SELECT 1\\"}"}}],"usage":{"prompt_tokens":1200,"completion_tokens":9,"prompt_tokens_details":{"cached_tokens":1024}}}},"error":null}
                {"id":"r2","custom_id":"1:q2","response":{"status_code":400,"body":{"error":{"message":"max_tokens too large"}}},"error":null}
                {"id":"r3","custom_id":"2:q3","response":null,"error":{"code":"batch_expired","message":"not executed in time"}}
                not json
                """;
        Map<String, BatchLines.LineResult> lines = BatchLines.parse(jsonl);
        assertEquals(3, lines.size());
        BatchLines.Answer a = assertInstanceOf(BatchLines.Answer.class, lines.get("0:q1"));
        assertEquals("{\"sql\":\"SELECT 1\"}", a.text());
        assertEquals(new TokenUsage(1200, 9, 1024, 0), a.usage());
        BatchLines.LineError refused = assertInstanceOf(BatchLines.LineError.class, lines.get("1:q2"));
        assertEquals("400", refused.code());
        assertEquals("max_tokens too large", refused.message());
        assertEquals(new BatchLines.LineError("batch_expired", "not executed in time"), lines.get("2:q3"));
    }

    @Test
    void shouldMapACustomIdBackToItsIndex() {
        assertEquals(7, ProviderBatch.indexOf("7:q-abc:1"));
        assertEquals(-1, ProviderBatch.indexOf("x:q"));
        assertEquals(-1, ProviderBatch.indexOf(null));
    }
}
