package dev.sqloop.gateway;

import java.util.LinkedHashMap;
import java.util.Map;

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

    public Map<String, Object> body() {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("error", error);
        body.put("message", getMessage());
        if (field != null) body.put("field", field);
        if (line != null) body.put("line", line);
        return body;
    }
}
