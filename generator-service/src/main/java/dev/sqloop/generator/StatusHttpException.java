package dev.sqloop.generator;

import dev.langchain4j.exception.HttpException;
import java.time.Duration;
import java.util.Optional;

/** langchain4j's {@link HttpException} plus the server's Retry-After hint, which the stock exception drops. */
public class StatusHttpException extends HttpException {
    private final transient Duration retryAfter;

    public StatusHttpException(int statusCode, String body, Duration retryAfter) {
        super(statusCode, body);
        this.retryAfter = retryAfter;
    }

    public Optional<Duration> retryAfter() {
        return Optional.ofNullable(retryAfter);
    }
}
