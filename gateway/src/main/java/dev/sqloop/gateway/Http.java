package dev.sqloop.gateway;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.sqloop.common.JsonCodec;
import io.javalin.http.Context;
import java.util.Locale;

/** Request helpers every endpoint class shares: media types and JSON bodies, refused with a 4xx {@link ApiError}. */
final class Http {
    private Http() {}

    static String mediaType(Context ctx) {
        String type = ctx.contentType();
        if (type == null) throw new ApiError(415, "unsupported_media_type", "a Content-Type header is required", null, null);
        int semi = type.indexOf(';');
        return (semi < 0 ? type : type.substring(0, semi)).trim().toLowerCase(Locale.ROOT);
    }

    static void requireJson(Context ctx, String expected) {
        if (!expected.equals(mediaType(ctx))) {
            throw new ApiError(415, "unsupported_media_type", "Content-Type must be " + expected, null, null);
        }
    }

    static JsonNode parseJson(String body) {
        if (body == null || body.isBlank()) throw ApiError.badRequest("the request body is empty", null);
        try {
            return JsonCodec.mapper().readTree(body);
        } catch (JsonProcessingException e) {
            throw ApiError.badRequest("invalid JSON: " + e.getOriginalMessage(), null);
        }
    }
}
