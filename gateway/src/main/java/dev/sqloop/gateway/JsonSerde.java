package dev.sqloop.gateway;

import dev.sqloop.common.JsonCodec;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/** Kafka Streams serde for sqloop's JSON records. */
final class JsonSerde<T> implements Serde<T> {
    private final Class<T> type;

    JsonSerde(Class<T> type) {
        this.type = type;
    }

    @Override
    public Serializer<T> serializer() {
        return (topic, value) -> value == null ? null : JsonCodec.encode(value);
    }

    @Override
    public Deserializer<T> deserializer() {
        return (topic, bytes) -> {
            if (bytes == null) return null;
            try {
                return JsonCodec.decode(bytes, type);
            } catch (JsonCodec.DecodeException e) {
                throw new SerializationException(e.getMessage(), e);
            }
        };
    }
}
