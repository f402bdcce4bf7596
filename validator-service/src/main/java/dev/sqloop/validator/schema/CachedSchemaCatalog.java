package dev.sqloop.validator.schema;

import dev.sqloop.common.runtime.InfrastructureException;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * A schema catalog reloaded when older than its TTL. One load at a time; while a reload fails the previous
 * catalog keeps serving, and with none yet the failure is an {@link InfrastructureException} (retried).
 */
public final class CachedSchemaCatalog {

    /** Reads a fresh catalog from the datasource. */
    @FunctionalInterface
    public interface Source {
        SchemaCatalog load() throws SQLException;
    }

    private final Source source;
    private final Duration ttl;
    private final Clock clock;
    private SchemaCatalog current;
    private Instant loadedAt;

    public CachedSchemaCatalog(Source source, Duration ttl, Clock clock) {
        this.source = Objects.requireNonNull(source, "source");
        this.ttl = Objects.requireNonNull(ttl, "ttl");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    public synchronized SchemaCatalog get() {
        Instant now = clock.instant();
        if (current != null && now.isBefore(loadedAt.plus(ttl))) return current;
        try {
            current = source.load();
            loadedAt = now;
        } catch (SQLException e) {
            if (current == null) throw new InfrastructureException("cannot load the schema catalog: " + e.getMessage(), e);
            // Serve the stale catalog and try again after a short pause rather than on every message.
            loadedAt = now.minus(ttl).plus(Duration.ofSeconds(Math.min(30, ttl.toSeconds())));
        }
        return current;
    }
}
