package dev.sqloop.generator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.langchain4j.exception.AuthenticationException;
import dev.langchain4j.exception.HttpException;
import dev.langchain4j.exception.InternalServerException;
import dev.langchain4j.exception.RateLimitException;
import dev.langchain4j.exception.TimeoutException;
import dev.sqloop.common.runtime.InfrastructureException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class LangChainLlmClientTest {

    @Test
    void shouldRetryRateLimitsHonouringRetryAfter() {
        RuntimeException e = LangChainLlmClient.classify(new RateLimitException(new StatusHttpException(429, "slow down", Duration.ofSeconds(7))));
        InfrastructureException i = assertInstanceOf(InfrastructureException.class, e);
        assertEquals(Duration.ofSeconds(7), i.retryAfter().orElseThrow());
    }

    @Test
    void shouldRetryServerErrorsTimeoutsAndRefusedConnections() {
        assertInstanceOf(InfrastructureException.class, LangChainLlmClient.classify(new InternalServerException(new HttpException(503, "down"))));
        assertInstanceOf(InfrastructureException.class, LangChainLlmClient.classify(new TimeoutException("read timed out")));
        assertInstanceOf(InfrastructureException.class, LangChainLlmClient.classify(
                new RuntimeException(new UncheckedIOException(new ConnectException("Connection refused")))));
    }

    @Test
    void shouldNotRetryRejectedRequests() {
        LlmRejectedException auth = assertInstanceOf(LlmRejectedException.class,
                LangChainLlmClient.classify(new AuthenticationException(new HttpException(401, "bad key"))));
        assertEquals(401, auth.statusCode());
        assertEquals(400, assertInstanceOf(LlmRejectedException.class,
                LangChainLlmClient.classify(new RuntimeException(new HttpException(400, "context too long")))).statusCode());
    }

    @Test
    void shouldParseRetryAfterInSecondsOrAsADate() {
        Instant now = Instant.parse("2026-01-01T00:00:00Z");
        assertEquals(Duration.ofSeconds(3), RetryAfterHttpClient.parseRetryAfter("3", now));
        assertEquals(Duration.ofSeconds(30), RetryAfterHttpClient.parseRetryAfter("Thu, 01 Jan 2026 00:00:30 GMT", now));
        assertNull(RetryAfterHttpClient.parseRetryAfter("soon", now));
        assertNull(RetryAfterHttpClient.parseRetryAfter(null, now));
    }
}
