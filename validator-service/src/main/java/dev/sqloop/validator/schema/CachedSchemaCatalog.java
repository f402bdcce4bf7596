package dev.sqloop.validator.schema;

import dev.sqloop.common.runtime.InfrastructureException;
import dev.sqloop.common.runtime.RefreshingValue;
import dev.sqloop.common.runtime.Stage;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A schema catalog reloaded when older than its TTL ({@link RefreshingValue}): only the first load is waited for;
 * after the TTL the catalog in use keeps serving while one reload runs in the background, and while reloads fail
 * (tried again every {@link #RETRY_PAUSE}). With no catalog yet, a failure is an {@link InfrastructureException}
 * (retried by the runner; the callers within {@link RefreshingValue#FIRST_LOAD_PAUSE} of it get it without another load).
 */
public final class CachedSchemaCatalog {
    private static final Logger log = LoggerFactory.getLogger(CachedSchemaCatalog.class);
    /** After a failed reload, how long the catalog in use serves before the next try. */
    static final Duration RETRY_PAUSE = Duration.ofSeconds(30);

    /** Reads a fresh catalog from the datasource. */
    @FunctionalInterface
    public interface Source {
        SchemaCatalog load() throws SQLException;
    }

    private final RefreshingValue<SchemaCatalog> catalog;

    public CachedSchemaCatalog(Source source, Duration ttl, Clock clock) {
        this(source, ttl, clock, RefreshingValue.daemonThread("catalog-reload"));
    }

    /** @param background runs the reloads after the TTL */
    CachedSchemaCatalog(Source source, Duration ttl, Clock clock, Executor background) {
        this.catalog = new RefreshingValue<>(source::load, ttl, RETRY_PAUSE, clock, background,
                e -> log.warn("could not reload the schema catalog (the one in use keeps serving): {}", Stage.describe(e)));
    }

    public SchemaCatalog get() {
        try {
            return catalog.get();
        } catch (SQLException e) {
            throw new InfrastructureException("cannot load the schema catalog: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e); // Source.load throws SQLException only
        }
    }
}
