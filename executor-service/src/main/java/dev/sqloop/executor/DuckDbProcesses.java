package dev.sqloop.executor;

import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.runtime.InfrastructureException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The DuckDB child processes of one executor, a pool per datasource of at most {@code _POOL_SIZE}: started when a query
 * needs one, kept for the next, and replaced when one was killed, ended at its cap or failed an allocation. A query
 * borrows one process for its whole run ({@link Lease}); none is free within {@code _CONNECT_TIMEOUT} is an
 * infrastructure failure, as for an exhausted connection pool.
 */
final class DuckDbProcesses implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DuckDbProcesses.class);
    /** One thread starts replacements for every datasource: a start is mostly the child's own work. */
    private static final ExecutorService REPLACEMENTS = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "sqloop-duckdb-replacements");
        t.setDaemon(true);
        return t;
    });
    private static final String ROOT_PREFIX = "sqloop-duckdb-";
    private final Map<String, Pool> pools = new ConcurrentHashMap<>();
    private final AtomicLong started = new AtomicLong();
    private volatile Path root;
    private volatile boolean closed;

    /** A free process of {@code ds}'s pool, started if none waits. */
    Lease lease(DatasourceConfig ds) {
        if (closed) throw new InfrastructureException("the executor is closed", null);
        Pool pool = pools.computeIfAbsent(ds.name(), n -> new Pool(ds));
        try {
            if (!pool.permits.tryAcquire(ds.connectTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
                throw new InfrastructureException("datasource " + ds.name() + " unavailable: all " + pool.size
                        + " DuckDB processes stayed busy for " + ds.connectTimeout().toMillis() + " ms", null);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InfrastructureException("interrupted waiting for a DuckDB process of datasource " + ds.name(), e);
        }
        try {
            return new Lease(pool, pool.take());
        } catch (RuntimeException e) {
            pool.permits.release();
            throw e;
        }
    }

    /** The process ids of {@code datasource}'s live processes, for tests that watch them being replaced. */
    List<Long> pids(String datasource) {
        Pool pool = pools.get(datasource);
        return pool == null ? List.of() : pool.live.stream().map(DuckDbProcess::pid).sorted().toList();
    }

    /** Ends the idle processes of {@code ds}; busy ones end when they are returned. */
    void retire(DatasourceConfig ds) {
        Pool pool = pools.get(ds.name());
        if (pool != null) pool.retire();
    }

    /**
     * The temp directory the children's own directories go in ({@code sqloop-duckdb-<executor pid>-…}), made on first
     * use and deleted on close. An executor that was killed could not delete its own: the next one deletes those whose
     * executor is gone (empty but for a crashed child's error file: each child deletes the library it unpacked).
     */
    private Path root() {
        Path r = root;
        if (r != null) return r;
        synchronized (this) {
            if (root == null) {
                Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
                deleteAbandoned(tmp);
                try {
                    root = Files.createTempDirectory(tmp, ROOT_PREFIX + ProcessHandle.current().pid() + "-");
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot create a temp directory for DuckDB processes", e);
                }
            }
            return root;
        }
    }

    private static void deleteAbandoned(Path tmp) {
        try (var dirs = Files.newDirectoryStream(tmp, ROOT_PREFIX + "*")) {
            for (Path d : dirs) {
                String[] parts = d.getFileName().toString().substring(ROOT_PREFIX.length()).split("-", 2);
                if (parts.length < 2 || !parts[0].matches("\\d{1,10}")) continue;
                boolean alive = ProcessHandle.of(Long.parseLong(parts[0])).map(ProcessHandle::isAlive).orElse(false);
                if (!alive) DuckDbProcess.deleteTree(d);
            }
        } catch (IOException | RuntimeException e) {
            LOG.debug("could not look for abandoned DuckDB process directories in {}: {}", tmp, e.toString());
        }
    }

    @Override
    public void close() {
        closed = true;
        pools.values().forEach(Pool::closeAll);
        pools.clear();
        DuckDbProcess.deleteTree(root);
    }

    /**
     * One datasource's processes: the permits bound how many queries run at once, the idle processes wait for the next
     * query, and a process that was ended is replaced in the background, so the query after a bomb finds one warm.
     */
    private final class Pool {
        final DatasourceConfig ds;
        final int size;
        final Semaphore permits;
        final Deque<DuckDbProcess> idle = new ArrayDeque<>();
        final Set<DuckDbProcess> live = ConcurrentHashMap.newKeySet();
        /** Processes being started (by a query or in the background): a query waits for one rather than start another. */
        int starting;
        int generation;

        Pool(DatasourceConfig ds) {
            this.ds = ds;
            this.size = ds.poolSize();
            this.permits = new Semaphore(size, true);
        }

        /** For a query holding a permit: the most recently used idle process, one being started, or a new one. */
        DuckDbProcess take() {
            List<DuckDbProcess> dead = new ArrayList<>();
            try {
                synchronized (this) {
                    long waitUntil = System.nanoTime() + DuckDbProcess.START_TIMEOUT.toNanos();
                    while (true) {
                        DuckDbProcess p = idle.pollFirst();
                        if (p != null && p.reusable()) return p;
                        if (p != null) {
                            dead.add(p);
                            continue;
                        }
                        long left = waitUntil - System.nanoTime();
                        if (starting == 0 || left <= 0) break;
                        try {
                            wait(Math.max(1, left / 1_000_000));
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            throw new InfrastructureException("interrupted waiting for a DuckDB process of datasource " + ds.name(), e);
                        }
                    }
                    starting++;
                }
            } finally {
                dead.forEach(this::end);
            }
            try {
                return start(ds.name() + "-" + started.incrementAndGet());
            } catch (DuckDbProcess.StartFailed e) {
                throw new InfrastructureException("datasource " + ds.name() + " unavailable: " + e.error.message(), e);
            } finally {
                synchronized (this) {
                    starting--;
                    notifyAll();
                }
            }
        }

        private DuckDbProcess start(String name) throws DuckDbProcess.StartFailed {
            DuckDbProcess p = DuckDbProcess.start(ds, root().resolve(name));
            live.add(p);
            if (closed) {
                end(p);
                throw new DuckDbProcess.StartFailed(EngineError.infrastructure("the executor is closed"));
            }
            return p;
        }

        /** Starts a process in the background for the idle list, unless the pool is full or closing. */
        void replace() {
            int startedIn;
            synchronized (this) {
                if (closed || live.size() + starting >= size) return;
                starting++;
                startedIn = generation;
            }
            REPLACEMENTS.execute(() -> {
                try {
                    DuckDbProcess p = start(ds.name() + "-" + started.incrementAndGet());
                    synchronized (this) {
                        if (startedIn == generation && live.size() <= size) {
                            idle.addFirst(p);
                            return;
                        }
                    }
                    end(p);
                } catch (DuckDbProcess.StartFailed | RuntimeException e) {
                    // the next query starts one itself and reports why it could not
                    LOG.warn("replacing a DuckDB process of datasource {} failed: {}", ds.name(), e.getMessage());
                } finally {
                    synchronized (this) {
                        starting--;
                        notifyAll();
                    }
                }
            });
        }

        void giveBack(DuckDbProcess p, int leasedIn) {
            boolean keep = p.reusable();
            synchronized (this) {
                if (keep && leasedIn == generation) {
                    idle.addFirst(p);
                    notifyAll();
                    return;
                }
            }
            end(p);
            if (!keep) replace();
        }

        void end(DuckDbProcess p) {
            live.remove(p);
            p.close();
        }

        void retire() {
            List<DuckDbProcess> gone;
            synchronized (this) {
                generation++;
                gone = List.copyOf(idle);
                idle.clear();
            }
            gone.forEach(this::end);
        }

        void closeAll() {
            retire();
            // busy ones too: their queries get an answer at once (the process ended) instead of keeping close() waiting
            List.copyOf(live).forEach(this::end);
        }
    }

    /** One process borrowed for one query; closing it returns the process, or ends it if it is spent. */
    final class Lease implements AutoCloseable {
        private final Pool pool;
        private final DuckDbProcess process;
        private final int generation;
        private boolean returned;

        private Lease(Pool pool, DuckDbProcess process) {
            this.pool = pool;
            this.process = process;
            synchronized (pool) {
                this.generation = pool.generation;
            }
        }

        AllowListCheck.SessionScope scope() {
            return process.scope();
        }

        long pid() {
            return process.pid();
        }

        DuckDbWire.Reply run(DuckDbWire.Request request) {
            return process.run(request);
        }

        @Override
        public void close() {
            if (returned) return;
            returned = true;
            if (closed) pool.end(process);
            else pool.giveBack(process, generation);
            pool.permits.release();
        }
    }
}
