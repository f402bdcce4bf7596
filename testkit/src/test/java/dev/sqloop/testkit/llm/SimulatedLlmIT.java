package dev.sqloop.testkit.llm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The simulated LLM's HTTP surface, spoken to with a plain JDK client. */
class SimulatedLlmIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private static HttpResponse<String> post(String url, String body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String openAiBody(String user, boolean json) {
        return "{\"model\":\"m\",\"messages\":[{\"role\":\"system\",\"content\":\"Write Trino SQL\"},{\"role\":\"user\",\"content\":"
                + JSON.valueToTree(user) + "}]" + (json ? ",\"response_format\":{\"type\":\"json_object\"}" : "") + "}";
    }

    @Test
    void shouldAnswerOpenAiAndOllamaRequestsFromAScriptFileAndRecordThem(@TempDir Path dir) throws Exception {
        Path script = dir.resolve("script.json");
        Files.writeString(script, "{\"How many orders?\": [\"SELECT 1\", \"SELECT count(*) FROM orders\"]}");
        try (SimulatedLlm llm = SimulatedLlm.start(ScriptedResponder.fromFile(script))) {
            HttpResponse<String> first = post(llm.openAiBaseUrl() + "/chat/completions", openAiBody("How many orders?", true));
            assertEquals(200, first.statusCode());
            JsonNode body = JSON.readTree(first.body());
            assertEquals("SELECT 1", body.at("/choices/0/message/content").asText());
            assertTrue(body.at("/usage/prompt_tokens").asInt() > 0);

            HttpResponse<String> second = post(llm.ollamaBaseUrl() + "/api/chat", "{\"model\":\"m\",\"stream\":false,\"format\":\"json\","
                    + "\"messages\":[{\"role\":\"user\",\"content\":\"Fix and regenerate for: How many orders?\"}]}");
            assertEquals("SELECT count(*) FROM orders", JSON.readTree(second.body()).at("/message/content").asText());
            assertTrue(JSON.readTree(second.body()).path("done").asBoolean());

            assertEquals(2, llm.requests().size());
            assertEquals("Write Trino SQL", llm.requests().get(0).system());
            assertTrue(llm.requests().get(0).call().jsonMode());
            assertEquals("ollama", llm.requests().get(1).call().api());
            assertTrue(llm.requests().get(1).call().jsonMode());
            assertEquals(2, llm.requestsMentioning("how many ORDERS?").size());
        }
    }

    @Test
    void shouldInjectStatusesRetryAfterMalformedBodiesAndSlowAnswersInOrder() throws Exception {
        try (SimulatedLlm llm = SimulatedLlm.start(new ScriptedResponder(Map.of("q", List.of("SELECT 1"))))) {
            llm.faults().rateLimitNext(1, Duration.ofSeconds(2)).failNext(1, 500, null).malformedNext(1).slowNext(1, Duration.ofMillis(400));
            String url = llm.openAiBaseUrl() + "/chat/completions";
            HttpResponse<String> limited = post(url, openAiBody("q", false));
            assertEquals(429, limited.statusCode());
            assertEquals("2", limited.headers().firstValue("Retry-After").orElseThrow());
            assertEquals(500, post(url, openAiBody("q", false)).statusCode());
            HttpResponse<String> malformed = post(url, openAiBody("q", false));
            assertEquals(200, malformed.statusCode());
            assertTrue(!malformed.body().endsWith("}"), "truncated JSON: " + malformed.body());
            long start = System.nanoTime();
            assertEquals(200, post(url, openAiBody("q", false)).statusCode());
            assertTrue((System.nanoTime() - start) / 1_000_000 >= 390, "slow answer");
            assertEquals(200, post(url, openAiBody("q", false)).statusCode(), "faults used up");
            llm.faults().failAlways(503, null);
            assertEquals(503, post(url, openAiBody("q", false)).statusCode());
            assertEquals(503, post(url, openAiBody("q", false)).statusCode());
            llm.faults().clear();
            assertEquals(200, post(url, openAiBody("q", false)).statusCode());
            assertEquals(List.of(429, 500, 200, 200, 200, 503, 503, 200), llm.requests().stream().map(RecordedRequest::status).toList());
        }
    }

    @Test
    void shouldDrawLatenciesFromTheConfiguredDistribution() {
        Random r = new Random(1);
        assertEquals(Duration.ofMillis(30), Latency.fixed(Duration.ofMillis(30)).next(r));
        Latency lognormal = Latency.lognormal(Duration.ofMillis(100), 0.5);
        long[] samples = new long[2001];
        for (int i = 0; i < samples.length; i++) samples[i] = lognormal.next(r).toMillis();
        java.util.Arrays.sort(samples);
        long median = samples[1000];
        assertTrue(median > 85 && median < 115, "median near 100 ms: " + median);
        assertTrue(samples[1980] > 2 * median, "a long tail: p99 " + samples[1980]);
    }
}
