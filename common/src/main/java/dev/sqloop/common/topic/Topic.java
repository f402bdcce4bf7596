package dev.sqloop.common.topic;

import java.util.Objects;

/**
 * A Kafka topic named together with the message type its records carry, so producing a task where a result belongs
 * does not compile. The instances live in {@link Topics}, the one registry.
 */
public record Topic<T>(String name, Class<T> type) {
    public Topic {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        if (name.isBlank()) throw new IllegalArgumentException("a topic needs a name");
    }

    public static <T> Topic<T> of(String name, Class<T> type) {
        return new Topic<>(name, type);
    }

    @Override
    public String toString() {
        return name;
    }
}
