package dev.sqloop.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.sqloop.common.config.EnvConfig;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.error.Outcomes;
import dev.sqloop.common.message.QuestionResult;
import dev.sqloop.common.message.QuestionTask;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RetriesTest {
    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
    private static final GatewayConfig CONFIG = GatewayConfig.fromEnv(new EnvConfig(Map.of(
            "SQLOOP_BOOTSTRAP_SERVERS", "127.0.0.1:1", "SQLOOP_DATASOURCE_DEMO_DIALECT", "duckdb")));

    @Test
    void shouldAskARetriedQuestionForAsManyCandidatesAsItsSubmitterDid() {
        Submitter submitter = new Submitter(null, null, CONFIG, Clock.fixed(NOW, ZoneOffset.UTC));
        QuestionTask asked = QuestionTask.create("q1", "t", "demo", "How many?", 3, NOW).withCandidatesWanted(5);
        QuestionResult outage = QuestionResult.failed(asked, Outcomes.LLM_UNAVAILABLE, ErrorCategory.CONNECTION_ERROR, "down", NOW);
        assertEquals(5, outage.candidatesWanted(), "the result keeps what was asked for");
        QuestionTask again = Retries.task(outage, 1, submitter, CONFIG);
        assertEquals(5, again.candidatesWanted(), "the retry asks for five again, not the datasource's number");
        assertEquals(1, again.round());
        QuestionTask plain = Retries.task(QuestionResult.failed(QuestionTask.create("q2", "t", "demo", "How many?", 3, NOW),
                Outcomes.LLM_UNAVAILABLE, ErrorCategory.CONNECTION_ERROR, "down", NOW), 1, submitter, CONFIG);
        assertNull(plain.candidatesWanted(), "nothing asked: the datasource's number applies");
    }
}
