package dev.sqloop.validator.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sqloop.common.runtime.InfrastructureException;
import java.sql.SQLException;
import dev.sqloop.testkit.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class CachedSchemaCatalogTest {
    private final ManualClock clock = new ManualClock("2026-11-22T10:00:00Z");

    private final List<Runnable> reloads = new ArrayList<>();

    @Test
    void shouldKeepServingTheLastCatalogWhileAReloadFails() {
        SchemaCatalog first = InMemorySchemaCatalog.builder().build();
        AtomicInteger calls = new AtomicInteger();
        CachedSchemaCatalog cached = new CachedSchemaCatalog(() -> {
            if (calls.incrementAndGet() > 1) throw new SQLException("connection refused");
            return first;
        }, Duration.ofMinutes(5), clock, reloads::add);
        assertSame(first, cached.get());
        clock.advance(Duration.ofMinutes(6));
        assertSame(first, cached.get());
        reloads.removeFirst().run();
        assertEquals(2, calls.get());
        assertSame(first, cached.get());
        assertEquals(List.of(), reloads, "a failed reload is not retried on every message");
    }

    @Test
    void shouldFailAsInfrastructureWhenNoCatalogWasEverLoaded() {
        CachedSchemaCatalog cached = new CachedSchemaCatalog(() -> {
            throw new SQLException("connection refused");
        }, Duration.ofMinutes(5), clock);
        assertThrows(InfrastructureException.class, cached::get);
    }
}
