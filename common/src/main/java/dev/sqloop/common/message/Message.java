package dev.sqloop.common.message;

import com.fasterxml.jackson.annotation.JsonIgnore;
import java.util.Map;

/** A record that travels on a sqloop topic: it names its Kafka key and the headers it implies. */
public interface Message {
    /** Version of the message layout; readers ignore fields they do not know. */
    int CURRENT_SCHEMA_VERSION = 1;

    @JsonIgnore
    String key();

    /** Headers derived from the message (attempt, question id…); the runner adds them to the record. */
    @JsonIgnore
    default Map<String, String> headers() {
        return Map.of();
    }
}
