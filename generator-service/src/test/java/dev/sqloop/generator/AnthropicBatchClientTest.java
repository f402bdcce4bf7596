package dev.sqloop.generator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sqloop.common.message.TokenUsage;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Message Batches' JSON both ways: the create body, a batch's state, the results lines. Pure: no HTTP. */
class AnthropicBatchClientTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void shouldRewriteCustomIdsToAnthropicsAlphabetKeepingTheWindowIndex() {
        assertEquals("3-q-abc-1", AnthropicBatchClient.customId("3:q-abc:1"));
        assertEquals("0-q_x_y", AnthropicBatchClient.customId("0:q x.y"));
        assertEquals(64, AnthropicBatchClient.customId("12:" + "q".repeat(100)).length());
        assertEquals(3, ProviderBatch.indexOf("3-q-abc-1"));
        assertEquals(7, ProviderBatch.indexOf("7:q-abc:1"), "OpenAI's ids read as before");
        assertEquals(-1, ProviderBatch.indexOf("q-3"));
    }

    @Test
    void shouldSendEachPromptAsTheOnlineMessagesBody() {
        ObjectNode body = AnthropicBatchClient.createBody(List.of(new ProviderBatchApi.Request("0:q-1",
                new LlmClient.Prompt("rules and schema", "examples", "how many?", false))),
                new BatchLines.RequestSettings("claude-haiku-4-5", 0.0, 256, true));
        assertEquals(1, body.path("requests").size());
        assertEquals("0-q-1", body.path("requests").path(0).path("custom_id").asText());
        assertEquals(AnthropicLlmClient.requestBody(new LlmClient.Prompt("rules and schema", "examples", "how many?", false),
                new AnthropicLlmClient.Settings("claude-haiku-4-5", 0.0, 256)), body.path("requests").path(0).path("params"));
    }

    @Test
    void shouldReadABatchEndedOrNot() throws Exception {
        ProviderBatchApi.State running = AnthropicBatchClient.state(JSON.readTree("""
                {"id":"msgbatch_1","type":"message_batch","processing_status":"in_progress","results_url":null,
                 "request_counts":{"processing":2,"succeeded":0,"errored":0,"canceled":0,"expired":0}}"""));
        assertFalse(running.ended());
        assertTrue(running.results().isEmpty());
        ProviderBatchApi.State ended = AnthropicBatchClient.state(JSON.readTree("""
                {"id":"msgbatch_1","type":"message_batch","processing_status":"ended","results_url":"https://x/v1/messages/batches/msgbatch_1/results",
                 "request_counts":{"processing":0,"succeeded":1,"errored":0,"canceled":0,"expired":1}}"""));
        assertTrue(ended.ended());
        assertEquals("ended (succeeded 1, errored 0, expired 1, canceled 0)", ended.status());
        assertEquals(List.of("https://x/v1/messages/batches/msgbatch_1/results"), ended.results());
    }

    @Test
    void shouldReadSucceededAndErroredLinesAndLeaveExpiredOnesUnanswered() {
        Map<String, BatchLines.LineResult> lines = AnthropicBatchClient.parse("""
                {"custom_id":"0-q-1","result":{"type":"succeeded","message":{"content":[{"type":"text","text":"{\\"sql\\":\\"SELECT 1\\"}"}],"usage":{"input_tokens":20,"cache_read_input_tokens":1500,"cache_creation_input_tokens":0,"output_tokens":9}}}}
                {"custom_id":"1-q-2","result":{"type":"errored","error":{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens too large"}}}}
                {"custom_id":"2-q-3","result":{"type":"expired"}}
                not json
                {"custom_id":"3-q-4","result":{"type":"canceled"}}
                """);
        assertEquals(2, lines.size(), lines.toString());
        BatchLines.Answer a = (BatchLines.Answer) lines.get("0-q-1");
        assertEquals("{\"sql\":\"SELECT 1\"}", a.text());
        assertEquals(new TokenUsage(1520, 9, 1500, 0), a.usage());
        assertEquals(new BatchLines.LineError("invalid_request_error", "max_tokens too large"), lines.get("1-q-2"));
    }
}
