package dev.sqloop.gateway;

import dev.sqloop.common.JsonCodec;
import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.handler.ErrorHandler;

/**
 * Jetty's own error answers (a request it refuses before Javalin sees it: a bad URI or header, an oversized header,
 * an unparseable request line) as the gateway's JSON error body instead of Jetty's HTML page.
 */
final class JsonErrorHandler extends ErrorHandler {

    /** {@code {error, message}} for a status: the same shape {@link ApiError#body()} has. */
    static ApiError.Refusal body(int status, String message) {
        return new ApiError.Refusal(errorName(status), message == null || message.isBlank() ? HttpStatus.getMessage(status) : message,
                null, null);
    }

    static String errorName(int status) {
        return switch (status) {
            case 400 -> "invalid_request";
            case 401 -> "unauthorized";
            case 403 -> "forbidden";
            case 404 -> "not_found";
            case 405 -> "method_not_allowed";
            case 413 -> "too_large";
            case 414 -> "uri_too_long";
            case 415 -> "unsupported_media_type";
            case 431 -> "headers_too_large";
            case 503 -> "unavailable";
            default -> status >= 500 ? "internal_error" : "invalid_request";
        };
    }

    @Override
    public void handle(String target, Request baseRequest, HttpServletRequest request, HttpServletResponse response) throws IOException {
        baseRequest.setHandled(true);
        int status = response.getStatus();
        Object message = request.getAttribute(RequestDispatcher.ERROR_MESSAGE);
        response.setContentType("application/json");
        response.setCharacterEncoding("UTF-8");
        byte[] json = JsonCodec.encode(body(status, message == null ? null : message.toString()));
        response.setContentLength(json.length);
        response.getOutputStream().write(json);
    }

    @Override
    public ByteBuffer badMessageError(int status, String reason, HttpFields.Mutable fields) {
        fields.put(new HttpField(HttpHeader.CONTENT_TYPE, "application/json"));
        return ByteBuffer.wrap(JsonCodec.encode(body(status, reason)));
    }
}
