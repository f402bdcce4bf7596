package dev.sqloop.gateway;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.swagger.v3.oas.annotations.media.Schema;

/** A request the gateway refuses: HTTP status plus the JSON body {@code {error, message, field|line}}. */
public final class ApiError extends RuntimeException {
    private final int status;
    private final String error;
    private final String field;
    private final Integer line;

    public ApiError(int status, String error, String message, String field, Integer line) {
        super(message);
        this.status = status;
        this.error = error;
        this.field = field;
        this.line = line;
    }

    public static ApiError badRequest(String message, String field) {
        return new ApiError(400, "invalid_request", message, field, null);
    }

    public static ApiError notFound(String what) {
        return new ApiError(404, "not_found", what + " not found", null, null);
    }

    public int status() {
        return status;
    }

    public Integer line() {
        return line;
    }

    public ApiError atLine(int lineNumber) {
        return new ApiError(status, error, "line " + lineNumber + ": " + getMessage(), field, lineNumber);
    }

    public Refusal body() {
        return new Refusal(error, getMessage(), field, line);
    }

    /** The JSON body of every error the gateway answers, its own refusals and what the HTTP server refuses alike. */
    @Schema(description = "Every error the gateway answers, whatever its status")
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Refusal(
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED, description = "what kind of refusal: invalid_request, unauthorized, "
                    + "forbidden, not_found, method_not_allowed, too_large, unsupported_media_type, a 409's state "
                    + "(already_final, not_final, …), unavailable, internal_error …") String error,
            @Schema(requiredMode = Schema.RequiredMode.REQUIRED, description = "why, for a person") String message,
            @Schema(description = "the field, query parameter or header refused") String field,
            @Schema(description = "in a batch: the 1-based line (NDJSON) or element (JSON array) refused", minimum = "1") Integer line) {}
}
