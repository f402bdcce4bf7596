package dev.sqloop.gateway;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import dev.sqloop.common.JsonCodec;
import io.javalin.http.Context;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Request helpers every endpoint class shares: media types and JSON bodies, refused with a 4xx {@link ApiError}.
 * Bodies are read through a counting stream: a body over its limit is a 413 as soon as the limit is crossed (or at
 * once when its Content-Length says so), never buffered whole. JSON is strict: one value per body (no trailing
 * tokens), no duplicate keys, and the bytes must be valid UTF-8.
 */
final class Http {
    /** Strict reading: trailing tokens and duplicate keys are errors. */
    static final ObjectReader STRICT = JsonCodec.mapper().reader()
            .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .with(StreamReadFeature.STRICT_DUPLICATE_DETECTION);

    private Http() {}

    /**
     * The submission's W3C trace context: the caller's {@code traceparent} continued (a child span), or a new trace
     * when it sent none or a malformed one; answered in the response's {@code traceparent} header so the caller can
     * find the question's log lines by trace id.
     */
    static String traceparent(Context ctx) {
        String tp = dev.sqloop.common.runtime.TraceParent.child(ctx.header(dev.sqloop.common.SqloopHeaders.TRACEPARENT));
        ctx.header(dev.sqloop.common.SqloopHeaders.TRACEPARENT, tp);
        return tp;
    }

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

    static ApiError tooLarge(String what, long limit) {
        return new ApiError(413, "too_large", what + " is larger than " + limit + " bytes", null, null);
    }

    /** The request body as a stream that refuses (413) its byte {@code limit + 1}; a larger Content-Length is refused at once. */
    static InputStream boundedBody(Context ctx, long limit) {
        return boundedBody(ctx.req(), limit);
    }

    /** {@link #boundedBody(Context, long)} of a servlet request (filters run before Javalin has a context). */
    static InputStream boundedBody(jakarta.servlet.http.HttpServletRequest req, long limit) {
        long declared = req.getContentLengthLong();
        if (declared > limit) throw tooLarge("the request body", limit);
        try {
            return new LimitedInputStream(req.getInputStream(), limit, "the request body");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The whole request body, at most {@code limit} bytes (else 413 before more is buffered). */
    static byte[] body(Context ctx, long limit) {
        try (InputStream in = boundedBody(ctx, limit)) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw ApiError.badRequest("the request body could not be read: " + e.getMessage(), null);
        }
    }

    /** One strict JSON value from UTF-8 bytes: empty, invalid UTF-8, malformed, trailing tokens or duplicate keys are 400. */
    static JsonNode parseJson(byte[] body) {
        if (isBlank(body)) throw ApiError.badRequest("the request body is empty", null);
        requireUtf8(body);
        try {
            return STRICT.readTree(body);
        } catch (JsonProcessingException e) {
            throw ApiError.badRequest(invalidJson(e), null);
        } catch (IOException e) {
            throw ApiError.badRequest("invalid JSON: " + e.getMessage(), null);
        }
    }

    /**
     * The parser's reason and where, for the caller: Jackson's own message names its source and settings ("start
     * marker at [Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: 1, column: 1]").
     */
    static String invalidJson(JsonProcessingException e) {
        String reason = e.getOriginalMessage() == null ? "malformed" : e.getOriginalMessage();
        // getOriginalMessage leaves out the location Jackson appends; only a start marker's is inside the text
        reason = reason.replaceAll("\\s*\\(start marker at \\[Source:[^\\]]*\\]\\)", "").strip();
        var at = e.getLocation();
        return "invalid JSON: " + reason + (at == null || at.getLineNr() < 1 ? "" : " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")");
    }

    static boolean isBlank(byte[] bytes) {
        for (byte b : bytes) if (b != ' ' && b != '\t' && b != '\r' && b != '\n') return false;
        return true;
    }

    /** A decoder that reports malformed and unmappable input instead of replacing it. */
    static CharsetDecoder strictUtf8() {
        return StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
    }

    static void requireUtf8(byte[] bytes) {
        try {
            strictUtf8().decode(ByteBuffer.wrap(bytes));
        } catch (CharacterCodingException e) {
            throw invalidUtf8();
        }
    }

    static ApiError invalidUtf8() {
        return ApiError.badRequest("the body is not valid UTF-8", null);
    }

    /** Counts bytes as they are read and throws a 413 {@link ApiError} once more than {@code limit} arrive. */
    static final class LimitedInputStream extends FilterInputStream {
        private final long limit;
        private final String what;
        private long count;

        LimitedInputStream(InputStream in, long limit, String what) {
            super(in);
            this.limit = limit;
            this.what = what;
        }

        private void add(long n) {
            if (n > 0) {
                count += n;
                if (count > limit) throw tooLarge(what, limit);
            }
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) add(1);
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            add(n);
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            long skipped = super.skip(n);
            add(skipped);
            return skipped;
        }

        @Override
        public boolean markSupported() {
            return false;
        }
    }

    /**
     * Reads {@code in} line by line ({@code \n}, an optional {@code \r} before it dropped), refusing (413) a line longer
     * than {@code maxLineBytes} before it is buffered further. Returns null at the end.
     */
    static byte[] readLine(InputStream in, int maxLineBytes, int lineNumber) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream(256);
        int b;
        boolean any = false;
        while ((b = in.read()) >= 0) {
            any = true;
            if (b == '\n') break;
            if (line.size() >= maxLineBytes + 1) { // one more for a '\r' before the '\n'
                throw new ApiError(413, "too_large", "a batch line is larger than " + maxLineBytes + " bytes", null, null).atLine(lineNumber);
            }
            line.write(b);
        }
        if (!any) return null;
        byte[] bytes = line.toByteArray();
        if (bytes.length > 0 && bytes[bytes.length - 1] == '\r') bytes = java.util.Arrays.copyOf(bytes, bytes.length - 1);
        if (bytes.length > maxLineBytes) {
            throw new ApiError(413, "too_large", "a batch line is larger than " + maxLineBytes + " bytes", null, null).atLine(lineNumber);
        }
        return bytes;
    }
}
