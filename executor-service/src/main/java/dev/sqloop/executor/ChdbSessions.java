package dev.sqloop.executor;

import dev.sqloop.chdb.Chdb;
import dev.sqloop.chdb.ChdbException;
import dev.sqloop.chdb.ChdbResult;
import dev.sqloop.chdb.ChdbSession;
import dev.sqloop.chdb.ChdbUrl;
import dev.sqloop.common.datasource.DatasourceConfig;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * ClickHouse in-process for {@code jdbc:chdb:DIR[?database=NAME]} datasources: up to {@code _POOL_SIZE} chDB sessions per
 * datasource, each opened with the datasource's caps and {@code readonly=1} ({@link ClickHouseSettings}), kept and
 * reused. chDB runs one directory per process ({@link Chdb}): datasources of one executor share it, a database each.
 */
final class ChdbSessions implements AutoCloseable {
    /** How long past the engine's own time limit a caller waits for a query before giving up on its session. */
    static final Duration GRACE = Duration.ofSeconds(5);

    private final Map<String, Pool> pools = new ConcurrentHashMap<>();

    /** Whether {@code ds} runs on chDB in this process. */
    static boolean inProcess(DatasourceConfig ds) {
        return ChdbUrl.matches(ds.jdbcUrl());
    }

    /** The outcome of one statement: its rows, or the engine's error. */
    sealed interface Outcome permits Rows, Failure {}

    record Rows(ChdbResult result) implements Outcome {}

    record Failure(ChdbException error) implements Outcome {}

    /** Runs {@code sql} on a session of {@code ds}; the caller waits at most the datasource's timeout plus {@link #GRACE}. */
    Outcome run(DatasourceConfig ds, String sql) throws ChdbTimeout {
        Pool pool = pools.computeIfAbsent(ds.name(), n -> new Pool(ds));
        try {
            if (!pool.permits.tryAcquire(ds.connectTimeout().toMillis() + ds.queryTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("no chDB session of datasource " + ds.name() + " came free");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for a chDB session", e);
        }
        ChdbSession session = pool.idle.pollFirst();
        if (session == null) {
            try {
                session = pool.open();
            } catch (RuntimeException e) {
                pool.permits.release();
                throw e;
            }
        }
        ChdbSession held = session;
        java.util.concurrent.CompletableFuture<Outcome> call = new java.util.concurrent.CompletableFuture<>();
        Thread.ofPlatform().daemon().name("sqloop-chdb-" + ds.name()).start(() -> {
            try {
                call.complete(new Rows(held.query(sql)));
            } catch (ChdbException e) {
                call.complete(new Failure(e));
            } catch (Throwable t) {
                call.completeExceptionally(t);
            }
        });
        long waitMillis = ds.queryTimeout().toMillis() + GRACE.toMillis();
        try {
            Outcome outcome = call.get(waitMillis, TimeUnit.MILLISECONDS);
            pool.idle.addFirst(held);
            pool.permits.release();
            return outcome;
        } catch (java.util.concurrent.TimeoutException e) {
            // the engine did not stop at max_execution_time: the session stays with its query (closed when it returns),
            // its slot is given back, and the caller reports a timeout
            call.whenComplete((o, t) -> held.close());
            pool.permits.release();
            throw new ChdbTimeout("chDB did not return within " + waitMillis + " ms (the datasource's timeout + " + GRACE.toSeconds()
                    + " s); its session was dropped");
        } catch (java.util.concurrent.ExecutionException e) {
            held.close();
            pool.permits.release();
            throw new IllegalStateException("chDB session failed: " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            call.whenComplete((o, t) -> held.close());
            pool.permits.release();
            throw new IllegalStateException("interrupted waiting for chDB", e);
        }
    }

    /** A query chDB did not end at its time limit. */
    static final class ChdbTimeout extends Exception {
        ChdbTimeout(String message) {
            super(message);
        }
    }

    /** Closes every idle session of {@code ds}; the next query opens new ones (tests that change the datasource). */
    void retire(DatasourceConfig ds) {
        Pool pool = pools.remove(ds.name());
        if (pool != null) pool.close();
    }

    @Override
    public void close() {
        pools.values().forEach(Pool::close);
        pools.clear();
    }

    private static final class Pool {
        final DatasourceConfig ds;
        final Semaphore permits;
        final ConcurrentLinkedDeque<ChdbSession> idle = new ConcurrentLinkedDeque<>();

        Pool(DatasourceConfig ds) {
            this.ds = ds;
            this.permits = new Semaphore(ds.poolSize());
        }

        ChdbSession open() {
            ChdbUrl target = ChdbUrl.of(ds.jdbcUrl());
            Map<String, String> settings = new java.util.LinkedHashMap<>(ClickHouseSettings.of(ds, 1));
            // 64-bit integers as JSON numbers, not strings: the preview shows them as the other engines' numbers
            settings.put("output_format_json_quote_64bit_integers", "0");
            return Chdb.open(target.directory()).session(settings, target.database());
        }

        void close() {
            ChdbSession s;
            while ((s = idle.pollFirst()) != null) s.close();
        }
    }
}
