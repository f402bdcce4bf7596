package dev.sqloop.executor;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.sqloop.common.Dialect;
import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.datasource.SessionSchemas;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.message.Execution;
import dev.sqloop.common.runtime.InfrastructureException;
import dev.sqloop.parse.RegexPolicy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one query read-only on a named datasource, through a pool of read-only connections per datasource:
 * refuses anything that is not a single query ({@link ReadOnlyGuard}), bounds rows with a LIMIT wrapper and
 * time with {@code setQueryTimeout}, and reports either the result's shape and a bounded preview or the
 * engine's error in the taxonomy. With a cost budget the engine first plans the query on the same session and a plan
 * estimated over it is refused as {@code too_expensive} ({@link CostGuard}). A failure to reach the engine is an
 * {@link InfrastructureException}. DuckDB, embedded,
 * runs in child processes under an OS memory cap ({@link DuckDbProcesses}) unless its datasource says {@code in-process}.
 */
public final class ReadOnlyExecutor implements QueryRunner, AutoCloseable {
    public static final int PREVIEW_ROWS = 20;
    private static final Logger LOG = LoggerFactory.getLogger(ReadOnlyExecutor.class);

    private final Map<String, HikariDataSource> pools = new ConcurrentHashMap<>();
    private final DuckDbProcesses processes = new DuckDbProcesses();
    private final ChdbSessions chdb = new ChdbSessions();
    /**
     * Where each pooled session resolves names written without catalog or schema, read once per physical connection:
     * PostgreSQL fixes a role's search path when a session starts ({@code DISCARD ALL} returns to it), so an
     * administrator's {@code ALTER ROLE … SET search_path} reaches only sessions opened after it, and one reading per
     * datasource (as before) checked the new sessions' bare names against the old path for the process's life.
     */
    private final Map<Connection, AllowListCheck.SessionScope> scopes = java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());
    /** Physical connections whose session was checked to read text as sqloop does ({@link EngineProfile#sessionProblem}). */
    private final Map<Connection, Boolean> verifiedSessions = java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());
    private final java.util.Set<String> unsafeDatasources = ConcurrentHashMap.newKeySet();
    /** Datasource and limit pairs already logged as unchecked for want of an engine figure (one warning each). */
    private final java.util.Set<String> uncheckedLimits = ConcurrentHashMap.newKeySet();
    /** Per datasource, the optional settings its server refused to the role (the pool is rebuilt without them). */
    private final Map<String, java.util.Set<String>> withoutSettings = new ConcurrentHashMap<>();

    @Override
    public Result run(DatasourceConfig ds, String sql) {
        ReadOnlyGuard.Verdict verdict = ReadOnlyGuard.check(sql, ds.dialect(), RegexPolicy.Mode.fromWire(ds.safeguards().regex()));
        if (!verdict.allowed()) {
            return Failed.refused(EngineError.sql(verdict.category(), "refused by the executor: " + verdict.reason()));
        }
        // refused before a connection is asked for; a bare name is judged on the session that runs it
        AllowListCheck.Verdict allowList = AllowListCheck.check(ds, verdict.query());
        if (allowList instanceof AllowListCheck.Refused r) return Failed.refused(r.error());
        return execute(ds, verdict.query(), allowList);
    }

    /**
     * Runs {@code query} exactly as {@link #run} would once its checks passed — same pool, session settings, limits,
     * reset — with sqloop's own checks bypassed: for tests that prove what the engine itself enforces.
     */
    Result runUnchecked(DatasourceConfig ds, String query) {
        return execute(ds, query, new AllowListCheck.Allowed());
    }

    private Result execute(DatasourceConfig ds, String query, AllowListCheck.Verdict allowList) {
        EngineProfile profile = EngineProfile.forDialect(ds.dialect());
        long start = System.nanoTime();
        // the text the engine gets; null: planned through prepared-statement metadata, the query itself
        String sent = switch (ds.validationMode()) {
            case LIMIT -> profile.limited(query, ds.rowLimit());
            case EXPLAIN -> profile.explain(query);
        };
        if (ChdbSessions.inProcess(ds)) return inChdb(ds, query, sent, allowList, start);
        return isolated(ds) ? inChildProcess(ds, query, sent, allowList, start)
                : onPooledConnection(ds, profile, query, sent, allowList, start);
    }

    private Result onPooledConnection(DatasourceConfig ds, EngineProfile profile, String query, String sent,
                                      AllowListCheck.Verdict allowList, long start) {
        try (Connection c = connect(ds, profile)) {
            try {
                String unsafe = verified(c, ds, profile);
                if (unsafe != null) {
                    return Failed.refused(EngineError.sql(ErrorCategory.PERMISSION_DENIED, "refused by the executor: datasource "
                            + ds.name() + " " + unsafe));
                }
                if (allowList instanceof AllowListCheck.NeedsSession pending) {
                    EngineError refused = AllowListCheck.onSession(ds, pending, scope(c));
                    if (refused != null) return Failed.refused(refused);
                }
                if (costGuarded(ds)) {
                    CostEstimate estimate;
                    try {
                        estimate = CostGuard.estimate(c, ds.dialect(), query, ds);
                    } catch (SQLException e) {
                        // the plan failed as the query would have: its error, positions moved past the EXPLAIN prefix
                        return failed(ds, profile.errors().classify(e), query, CostGuard.explainStatement(ds.dialect(), query), e);
                    }
                    EngineError over = judged(ds, estimate);
                    if (over != null) return new Failed(over);
                }
                Execution e = sent == null ? prepared(c, query, ds, start)
                        : switch (ds.validationMode()) {
                            case LIMIT -> query(c, sent, ds, start);
                            case EXPLAIN -> explain(c, sent, ds, start);
                        };
                return new Succeeded(e);
            } finally {
                // after the query, not before the next: what it left in its session (an advisory lock, a setting, a
                // temporary table) must not outlive it in an idle pooled connection
                reset(c, ds, profile);
            }
        } catch (SQLException e) {
            return failed(ds, profile.errors().classify(e), query, sent, e);
        }
    }

    /** The same three ways, in a DuckDB process of the datasource, which classifies the engine's error itself. */
    private Result inChildProcess(DatasourceConfig ds, String query, String sent, AllowListCheck.Verdict allowList, long start) {
        try (DuckDbProcesses.Lease child = processes.lease(ds)) {
            if (allowList instanceof AllowListCheck.NeedsSession pending) {
                EngineError refused = AllowListCheck.onSession(ds, pending, child.scope());
                if (refused != null) return Failed.refused(refused);
            }
            if (costGuarded(ds)) {
                DuckDbWire.Reply planned = child.run(new DuckDbWire.Request(DuckDbWire.Kind.ESTIMATE, query, ds.rowLimit(),
                        ds.queryTimeout().toMillis()));
                if (planned.failure() != null) throw new IllegalStateException("DuckDB process: " + planned.failure());
                if (planned.error() != null) {
                    return failed(ds, planned.error(), query, CostGuard.explainStatement(ds.dialect(), query), null);
                }
                EngineError over = judged(ds, planned.estimate());
                if (over != null) return new Failed(over);
            }
            DuckDbWire.Kind kind = sent == null ? DuckDbWire.Kind.PREPARED : switch (ds.validationMode()) {
                case LIMIT -> DuckDbWire.Kind.QUERY;
                case EXPLAIN -> DuckDbWire.Kind.EXPLAIN;
            };
            DuckDbWire.Reply reply = child.run(new DuckDbWire.Request(kind, sent == null ? query : sent, ds.rowLimit(),
                    ds.queryTimeout().toMillis()));
            if (reply.failure() != null) throw new IllegalStateException("DuckDB process: " + reply.failure());
            if (reply.error() == null) return new Succeeded(reply.execution(millisSince(start)));
            return failed(ds, reply.error(), query, sent, null);
        }
    }

    /**
     * ClickHouse in this process (chDB): the engine holds the caps and {@code readonly=1} on each session, so the scan
     * budget is enforced while the query reads rather than estimated before ({@link ClickHouseSettings}).
     */
    private Result inChdb(DatasourceConfig ds, String query, String sent, AllowListCheck.Verdict allowList, long start) {
        if (allowList instanceof AllowListCheck.NeedsSession pending) {
            // a bare name resolves in the URL's database; ClickHouse has no catalog level
            String database = dev.sqloop.chdb.ChdbUrl.of(ds.jdbcUrl()).database();
            EngineError refused = AllowListCheck.onSession(ds, pending, new AllowListCheck.SessionScope(null, List.of(database)));
            if (refused != null) return Failed.refused(refused);
        }
        ChdbSessions.Outcome outcome;
        try {
            outcome = chdb.run(ds, sent);
        } catch (ChdbSessions.ChdbTimeout t) {
            return new Failed(EngineError.sql(ErrorCategory.TIMEOUT, t.getMessage()));
        } catch (IllegalStateException | IllegalArgumentException e) {
            // no library, the engine did not start, another directory already runs here: the warehouse, not the SQL
            throw new InfrastructureException("datasource " + ds.name() + " unavailable: " + e.getMessage(), e);
        }
        return switch (outcome) {
            case ChdbSessions.Failure f -> failed(ds, ClickHouseErrors.classify(f.error().code(), f.error().name(),
                    EngineMessages.cutStack(f.error().getMessage())), query, sent, f.error());
            case ChdbSessions.Rows r -> {
                if (ds.validationMode() == dev.sqloop.common.datasource.ValidationMode.EXPLAIN) {
                    yield new Succeeded(new Execution(List.of(), List.of(), 0, List.of(), millisSince(start)));
                }
                List<List<Object>> preview = new ArrayList<>();
                for (List<Object> row : r.result().rows()) {
                    if (preview.size() == PREVIEW_ROWS) break;
                    List<Object> values = new ArrayList<>(row.size());
                    for (Object v : row) values.add(PreviewValues.of(v));
                    preview.add(java.util.Collections.unmodifiableList(values));
                }
                yield new Succeeded(new Execution(r.result().columns(), r.result().types(), r.result().rows().size(),
                        List.copyOf(preview), millisSince(start)));
            }
        };
    }

    /** An engine error: the warehouse's (retried by the runner) or the query's, its positions moved to the author's text. */
    private static Failed failed(DatasourceConfig ds, EngineError error, String query, String sent, Throwable cause) {
        if (error.infrastructure()) {
            throw new InfrastructureException("datasource " + ds.name() + " unavailable: " + error.message(), cause);
        }
        int at = sent == null ? -1 : sent.indexOf(query);
        if (at > 0) error = error.withMessage(EngineMessages.positionsBefore(error.message(), sent.substring(0, at)));
        return new Failed(error);
    }

    /** The cost guard's verdict; a limit the engine gave no figure for is logged once per datasource, not enforced. */
    private EngineError judged(DatasourceConfig ds, CostEstimate estimate) {
        for (String limit : CostGuard.unchecked(estimate, ds.safeguards().cost())) {
            if (uncheckedLimits.add(ds.name() + limit)) {
                LOG.warn("datasource {}: the {} engine gave no figure for SQLOOP_DATASOURCE_{}{} on a query; that limit goes"
                        + " unchecked where it has none (executor-service README, Cost guard)", ds.name(), ds.dialect().wireName(),
                        ds.name().toUpperCase(java.util.Locale.ROOT), limit);
            }
        }
        return CostGuard.judge(estimate, ds.safeguards().cost());
    }

    /**
     * Whether the engine is asked for its estimate before the query runs: a budget is set ({@link CostGuard}) and the
     * query would run (an EXPLAIN-mode datasource only plans it, which costs what the estimate itself costs).
     */
    static boolean costGuarded(DatasourceConfig ds) {
        // ClickHouse enforces the scan budget itself, while reading (max_rows_to_read / max_bytes_to_read)
        return ds.validationMode() == dev.sqloop.common.datasource.ValidationMode.LIMIT && ds.safeguards().cost().guarded()
                && ds.dialect() != Dialect.CLICKHOUSE;
    }

    /**
     * DuckDB runs in this JVM's address space when embedded: a query that allocates outside its {@code memory_limit}
     * (a formatted value a gigabyte wide) would grow the executor itself, so by default it runs in a child process.
     */
    static boolean isolated(DatasourceConfig ds) {
        return ds.dialect() == Dialect.DUCKDB && ds.safeguards().processIsolation();
    }

    /** A pooled connection; a setting the server refuses to the role (optional, see the profile) is dropped once. */
    private Connection connect(DatasourceConfig ds, EngineProfile profile) throws SQLException {
        try {
            return pool(ds, profile).getConnection();
        } catch (SQLException e) {
            String setting = profile.refusedOptionalSetting(e);
            if (setting == null || !withoutSettings.computeIfAbsent(ds.name(), k -> ConcurrentHashMap.newKeySet()).add(setting)) throw e;
            LOG.warn("datasource {}: the server refuses {} to this role ({}); running without it. {}", ds.name(), setting,
                    e.getCause() == null ? e.getMessage() : e.getCause().getMessage(), profile.howToGrant(setting));
            HikariDataSource old = pools.remove(ds.name());
            if (old != null) old.close();
            return pool(ds, profile).getConnection();
        }
    }

    /** Null when the session reads text as sqloop's checks do (asked once per physical connection), else why not. */
    private String verified(Connection pooled, DatasourceConfig ds, EngineProfile profile) throws SQLException {
        Connection physical = physical(pooled);
        if (verifiedSessions.containsKey(physical)) return null;
        String problem = profile.sessionProblem(pooled);
        if (problem != null) {
            if (unsafeDatasources.add(ds.name())) LOG.error("datasource {} {}: every query on it is refused", ds.name(), problem);
            return problem;
        }
        verifiedSessions.put(physical, Boolean.TRUE);
        return null;
    }

    private void reset(Connection c, DatasourceConfig ds, EngineProfile profile) {
        try {
            profile.resetSession(c);
        } catch (SQLException | RuntimeException e) {
            HikariDataSource pool = pools.get(ds.name());
            if (pool != null) pool.evictConnection(c);
        }
    }

    private static Connection physical(Connection pooled) throws SQLException {
        return pooled.isWrapperFor(Connection.class) ? pooled.unwrap(Connection.class) : pooled;
    }

    static Execution query(Connection c, String text, DatasourceConfig ds, long start) throws SQLException {
        // one Statement per query: DuckDB closes a Statement after a failed execute
        try (Statement st = c.createStatement(); Watchdog w = Watchdog.arm(st, ds)) {
            verbatim(st);
            st.setQueryTimeout(EngineProfile.timeoutSeconds(ds));
            st.setMaxRows(ds.rowLimit());
            try (ResultSet rs = st.executeQuery(text)) {
                ResultSetMetaData md = rs.getMetaData();
                int n = md.getColumnCount();
                List<List<Object>> preview = new ArrayList<>();
                long rows = 0;
                while (rs.next()) {
                    if (rows < PREVIEW_ROWS) {
                        List<Object> row = new ArrayList<>(n);
                        for (int i = 1; i <= n; i++) row.add(PreviewValues.of(rs.getObject(i)));
                        preview.add(java.util.Collections.unmodifiableList(row));
                    }
                    rows++;
                }
                return new Execution(columns(md), types(md), rows, List.copyOf(preview), millisSince(start));
            }
        }
    }

    /**
     * No JDBC escape processing: pgjdbc would rewrite {@code {fn …}}, {@code {d …}} and {@code {call …}} in the text
     * before sending it, so the engine would run a text the checks never read.
     */
    static void verbatim(Statement st) {
        try {
            st.setEscapeProcessing(false);
        } catch (SQLException | RuntimeException ignored) {
            // drivers without escape processing (hive-jdbc) refuse or ignore the call: nothing to switch off
        }
    }

    /** Plans without running through the engine's EXPLAIN (where it validates fully). */
    static Execution explain(Connection c, String explain, DatasourceConfig ds, long start) throws SQLException {
        try (Statement st = c.createStatement(); Watchdog w = Watchdog.arm(st, ds)) {
            verbatim(st);
            st.setQueryTimeout(EngineProfile.timeoutSeconds(ds));
            try (ResultSet rs = st.executeQuery(explain)) {
                while (rs.next()) {
                    // drain: the plan itself is not part of the result
                }
            }
        }
        return new Execution(List.of(), List.of(), 0, List.of(), millisSince(start));
    }

    /** Plans without running through prepared-statement metadata (engines whose EXPLAIN does not validate). */
    static Execution prepared(Connection c, String query, DatasourceConfig ds, long start) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(query)) {
            ps.setQueryTimeout(EngineProfile.timeoutSeconds(ds));
            ResultSetMetaData md = ps.getMetaData();
            return new Execution(md == null ? List.of() : columns(md), md == null ? List.of() : types(md), 0, List.of(),
                    millisSince(start));
        }
    }

    /** Where this session resolves bare names (read after its reset, once per physical connection). */
    private AllowListCheck.SessionScope scope(Connection pooled) throws SQLException {
        Connection physical = physical(pooled);
        AllowListCheck.SessionScope known = scopes.get(physical);
        if (known != null) return known;
        AllowListCheck.SessionScope scope = readScope(pooled);
        scopes.put(physical, scope);
        return scope;
    }

    /** Where {@code c} resolves names written without catalog or schema (a DuckDB child reads its own the same way). */
    static AllowListCheck.SessionScope readScope(Connection c) throws SQLException {
        String catalog;
        try {
            catalog = c.getCatalog();
        } catch (SQLException | RuntimeException | AbstractMethodError e) {
            catalog = null;
        }
        return new AllowListCheck.SessionScope(catalog == null || catalog.isBlank() ? null : catalog,
                SessionSchemas.searchPath(c), SessionSchemas.implicitRelations(c));
    }

    /** Retires every pooled connection (or DuckDB process) of {@code ds} once it is returned (a test's new sessions). */
    void retireConnections(DatasourceConfig ds) {
        HikariDataSource pool = pools.get(ds.name());
        if (pool != null && pool.getHikariPoolMXBean() != null) pool.getHikariPoolMXBean().softEvictConnections();
        processes.retire(ds);
        chdb.retire(ds);
    }

    /**
     * A pooled connection in this JVM, for tests that read the engine's own view or prove it refuses writes itself. A
     * DuckDB datasource isolated in processes gets one opened here with the same settings ({@link #child} reaches them).
     */
    Connection borrow(DatasourceConfig ds) throws SQLException {
        return pool(ds, EngineProfile.forDialect(ds.dialect())).getConnection();
    }

    /** A DuckDB process of {@code ds} held like a borrowed connection: the test seam past the guard and the allow-lists. */
    DuckDbProcesses.Lease child(DatasourceConfig ds) {
        return processes.lease(ds);
    }

    /** {@code sql} sent as it is to a chDB session of {@code ds}: the test seam past the guard, the allow-lists and the wrapper. */
    ChdbSessions.Outcome onChdb(DatasourceConfig ds, String sql) throws ChdbSessions.ChdbTimeout {
        return chdb.run(ds, sql);
    }

    /** The ids of {@code ds}'s live DuckDB processes. */
    List<Long> childPids(DatasourceConfig ds) {
        return processes.pids(ds.name());
    }

    private static List<String> columns(ResultSetMetaData md) throws SQLException {
        List<String> out = new ArrayList<>();
        for (int i = 1; i <= md.getColumnCount(); i++) out.add(md.getColumnLabel(i));
        return out;
    }

    private static List<String> types(ResultSetMetaData md) throws SQLException {
        List<String> out = new ArrayList<>();
        for (int i = 1; i <= md.getColumnCount(); i++) out.add(md.getColumnTypeName(i));
        return out;
    }

    private static long millisSince(long start) {
        return (System.nanoTime() - start) / 1_000_000;
    }

    private HikariDataSource pool(DatasourceConfig ds, EngineProfile profile) {
        HikariDataSource existing = pools.get(ds.name());
        if (existing != null) return existing;
        return pools.computeIfAbsent(ds.name(), name -> {
            HikariConfig hc = new HikariConfig();
            hc.setPoolName("sqloop-" + name);
            hc.setReadOnly(true);
            hc.setAutoCommit(true);
            hc.setMaximumPoolSize(ds.poolSize());
            hc.setMinimumIdle(0);
            hc.setConnectionTimeout(Math.max(250, ds.connectTimeout().toMillis()));
            hc.setValidationTimeout(Math.max(250, Math.min(ds.connectTimeout().toMillis(), 5000)));
            // start even when the warehouse is down: a worker that cannot reach it retries per message instead
            hc.setInitializationFailTimeout(-1);
            profile.configure(hc, ds, withoutSettings.getOrDefault(name, java.util.Set.of()));
            return new HikariDataSource(hc);
        });
    }

    /** How long {@link #close} waits for the pools: a statement stuck in an engine that stopped answering must not hold a stop. */
    static final java.time.Duration CLOSE_WAIT = java.time.Duration.ofSeconds(5);

    @Override
    public void close() {
        processes.close();
        chdb.close();
        // each pool closes on its own thread: HikariCP waits for borrowed connections, and a driver whose server hangs
        // (a Hive query that ignores cancel) can hold one past any timeout
        List<Thread> closing = new ArrayList<>();
        for (Map.Entry<String, HikariDataSource> e : pools.entrySet()) {
            closing.add(Thread.ofPlatform().daemon().name("sqloop-close-" + e.getKey()).start(e.getValue()::close));
        }
        long deadline = System.nanoTime() + CLOSE_WAIT.toNanos();
        for (Thread t : closing) {
            try {
                t.join(java.time.Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
                break;
            }
            if (t.isAlive()) LOG.warn("{}: still waiting for a connection after {}; leaving it", t.getName(), CLOSE_WAIT);
        }
        pools.clear();
        scopes.clear();
    }
}
