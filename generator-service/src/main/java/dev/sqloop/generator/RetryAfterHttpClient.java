package dev.sqloop.generator;

import dev.langchain4j.exception.TimeoutException;
import dev.langchain4j.http.client.HttpClient;
import dev.langchain4j.http.client.HttpClientBuilder;
import dev.langchain4j.http.client.HttpRequest;
import dev.langchain4j.http.client.SuccessfulHttpResponse;
import dev.langchain4j.http.client.sse.ServerSentEventListener;
import dev.langchain4j.http.client.sse.ServerSentEventParser;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;

/**
 * The langchain4j HTTP client on the JDK's {@link java.net.http.HttpClient}, differing from langchain4j's own
 * in one respect: an error status becomes a {@link StatusHttpException} carrying the Retry-After header, so
 * the stage runner can honour the server's rate-limit hint. Streaming is not used by sqloop.
 */
public final class RetryAfterHttpClient implements HttpClient {
    private final java.net.http.HttpClient client;
    private final Duration readTimeout;

    private RetryAfterHttpClient(Duration connectTimeout, Duration readTimeout) {
        java.net.http.HttpClient.Builder b = java.net.http.HttpClient.newBuilder().version(java.net.http.HttpClient.Version.HTTP_1_1);
        if (connectTimeout != null) b.connectTimeout(connectTimeout);
        this.client = b.build();
        this.readTimeout = readTimeout;
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public SuccessfulHttpResponse execute(HttpRequest request) {
        java.net.http.HttpRequest.Builder b = java.net.http.HttpRequest.newBuilder(URI.create(request.url()))
                .method(request.method().name(), request.body() == null
                        ? java.net.http.HttpRequest.BodyPublishers.noBody()
                        : java.net.http.HttpRequest.BodyPublishers.ofString(request.body(), StandardCharsets.UTF_8));
        request.headers().forEach((name, values) -> {
            if (!name.equalsIgnoreCase("content-length") && !name.equalsIgnoreCase("host")) values.forEach(v -> b.header(name, v));
        });
        if (readTimeout != null) b.timeout(readTimeout);
        HttpResponse<String> response;
        try {
            response = client.send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (HttpTimeoutException e) {
            throw new TimeoutException(e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while calling the LLM", e);
        }
        int status = response.statusCode();
        if (status < 200 || status >= 300) {
            throw new StatusHttpException(status, response.body(),
                    parseRetryAfter(response.headers().firstValue("Retry-After").orElse(null), Instant.now()));
        }
        Map<String, List<String>> headers = response.headers().map();
        return SuccessfulHttpResponse.builder().statusCode(status).headers(headers).body(response.body()).build();
    }

    @Override
    public void execute(HttpRequest request, ServerSentEventParser parser, ServerSentEventListener listener) {
        throw new UnsupportedOperationException("streaming is not used by sqloop");
    }

    /** Retry-After is either delay-seconds or an HTTP date (RFC 9110 §10.2.3); anything else is ignored. */
    static Duration parseRetryAfter(String value, Instant now) {
        if (value == null || value.isBlank()) return null;
        String v = value.trim();
        try {
            long seconds = Long.parseLong(v);
            return seconds < 0 ? null : Duration.ofSeconds(seconds);
        } catch (NumberFormatException e) {
            try {
                Instant at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
                Duration d = Duration.between(now, at);
                return d.isNegative() ? Duration.ZERO : d;
            } catch (RuntimeException ignored) {
                return null;
            }
        }
    }

    /** The builder langchain4j's chat models accept. */
    public static final class Builder implements HttpClientBuilder {
        private Duration connectTimeout;
        private Duration readTimeout;

        @Override
        public Duration connectTimeout() {
            return connectTimeout;
        }

        @Override
        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = timeout;
            return this;
        }

        @Override
        public Duration readTimeout() {
            return readTimeout;
        }

        @Override
        public Builder readTimeout(Duration timeout) {
            this.readTimeout = timeout;
            return this;
        }

        @Override
        public HttpClient build() {
            return new RetryAfterHttpClient(connectTimeout, readTimeout);
        }
    }
}
