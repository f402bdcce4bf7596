package dev.sqloop.common;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.io.IOException;

/**
 * JSON for every sqloop message. Unknown fields are ignored (forward compatible); a record's compact
 * constructor rejects missing required fields, which surfaces here as a {@link DecodeException}.
 */
public final class JsonCodec {
    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .addModule(new JavaTimeModule())
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .serializationInclusion(JsonInclude.Include.NON_NULL)
            .build();

    private JsonCodec() {}

    public static ObjectMapper mapper() {
        return MAPPER;
    }

    public static byte[] encode(Object value) {
        try {
            return MAPPER.writeValueAsBytes(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot encode " + value.getClass().getSimpleName() + ": " + e.getMessage(), e);
        }
    }

    public static String encodeToString(Object value) {
        return new String(encode(value), java.nio.charset.StandardCharsets.UTF_8);
    }

    public static <T> T decode(byte[] bytes, Class<T> type) throws DecodeException {
        if (bytes == null) throw new DecodeException("record has no value (tombstone) where a " + type.getSimpleName() + " was expected");
        try {
            T value = MAPPER.readValue(bytes, type);
            if (value == null) throw new DecodeException("value is JSON null where a " + type.getSimpleName() + " was expected");
            return value;
        } catch (IOException e) {
            Throwable root = e;
            while (root.getCause() != null && root.getCause() != root) root = root.getCause();
            String detail = root instanceof NullPointerException || root instanceof IllegalArgumentException
                    ? "missing or invalid required field: " + root.getMessage()
                    : e instanceof JsonProcessingException j ? j.getOriginalMessage() : root.getMessage();
            throw new DecodeException("cannot decode " + type.getSimpleName() + ": " + detail, e);
        }
    }

    /** A record value that is not the message its topic carries. */
    public static final class DecodeException extends Exception {
        public DecodeException(String message) {
            super(message);
        }

        public DecodeException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
