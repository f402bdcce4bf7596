package dev.sqloop.common.message;

import java.util.Objects;

/**
 * A deletion on a compacted topic: the runner produces it as a record with this key and a null value, which
 * compaction keeps until every reader has seen it and then removes together with the older values of the key.
 */
public record Tombstone(String key) implements Message {
    public Tombstone {
        Objects.requireNonNull(key, "key");
    }
}
