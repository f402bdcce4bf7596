package dev.sqloop.generator;

/** The LLM endpoint refused the request in a way retrying cannot fix (bad request, bad credentials, no such model). */
public class LlmRejectedException extends RuntimeException {
    private final int statusCode;

    public LlmRejectedException(int statusCode, String message, Throwable cause) {
        super(message, cause);
        this.statusCode = statusCode;
    }

    public int statusCode() {
        return statusCode;
    }
}
