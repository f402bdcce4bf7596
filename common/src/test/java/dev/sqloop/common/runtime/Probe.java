package dev.sqloop.common.runtime;

import dev.sqloop.common.message.Message;
import java.util.Objects;

/** A minimal message for runtime tests: an id and a sequence number; {@code id} is required. */
public record Probe(String id, int seq, int hops) implements Message {
    public Probe {
        Objects.requireNonNull(id, "id");
    }

    @Override
    public String key() {
        return id;
    }
}
