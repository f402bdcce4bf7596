package dev.sqloop.embedded;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sqloop.cli.Args;
import dev.sqloop.cli.GatewayClient;
import java.time.Duration;

/** Waiting on the gateway's API for one question to become final, as a client polling it would. */
final class QuestionWait {
    private QuestionWait() {}

    /** The question's final state (succeeded or failed); fails after 60 s. A 404 is "not read back from Kafka yet". */
    static JsonNode awaitFinal(GatewayClient client, String id) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            JsonNode q = null;
            try {
                q = client.getPatiently("/v1/questions/" + id, Duration.ofSeconds(30));
                String s = q.get("status").asText();
                if (s.equals("succeeded") || s.equals("failed")) return q;
            } catch (Args.UsageException notYet) {
                // 404 until the gateway has read the submission back from Kafka
                if (!notYet.getMessage().contains("404")) throw notYet;
            }
            assertTrue(System.nanoTime() < deadline, "never final: " + q);
            Thread.sleep(100);
        }
    }
}
