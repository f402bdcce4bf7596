package dev.sqloop.executor;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.datasource.ReadOnlyJdbc;
import dev.sqloop.common.datasource.Safeguards;
import dev.sqloop.common.datasource.ValidationMode;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.message.Execution;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.SynchronousQueue;

/**
 * A DuckDB child process of the executor ({@link DuckDbProcess} starts it under an address-space cap): opens one
 * datasource's file with the executor's own read-only settings and runs the statements the executor sends on stdin,
 * one at a time, answering on stdout ({@link DuckDbWire}). It ends as soon as its stdin closes, in the middle of a
 * query too, so no child outlives the executor that started it.
 */
public final class DuckDbProcessMain {
    private static final DuckDbProfile PROFILE = new DuckDbProfile();

    private DuckDbProcessMain() {}

    public static void main(String[] args) throws Exception {
        // stdout carries frames only: whatever else prints (a logger, a library) goes to stderr, whose tail the parent keeps
        DataOutputStream out = new DataOutputStream(new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16));
        System.setOut(System.err);
        DataInputStream in = new DataInputStream(new BufferedInputStream(new FileInputStream(FileDescriptor.in), 1 << 16));
        DatasourceConfig ds = datasource(DuckDbWire.read(in, DuckDbWire.Open.class));
        Connection c;
        AllowListCheck.SessionScope scope;
        try {
            c = open(ds);
            forgetExtractedLibrary();
            // the first statement starts the driver's and the watchdog's threads while the address space is nearly empty
            ReadOnlyExecutor.query(c, "SELECT 1", ds, System.nanoTime());
            scope = ReadOnlyExecutor.readScope(c);
        } catch (SQLException e) {
            DuckDbWire.write(out, new DuckDbWire.Ready(null, null, null, PROFILE.errors().classify(e)));
            return;
        }
        DuckDbWire.write(out, new DuckDbWire.Ready(scope.catalog(), scope.schemas(), scope.implicit(), null));

        SynchronousQueue<DuckDbWire.Request> requests = new SynchronousQueue<>();
        Thread reader = new Thread(() -> {
            try {
                while (true) requests.put(DuckDbWire.read(in, DuckDbWire.Request.class));
            } catch (IOException | InterruptedException e) {
                // the executor closed the pipe or died: end now, whatever DuckDB is doing (halt: no hook waits on it)
                Runtime.getRuntime().halt(0);
            }
        }, "sqloop-duckdb-requests");
        reader.setDaemon(true);
        reader.start();
        while (true) {
            DuckDbWire.Reply reply = answer(c, ds, requests.take());
            try {
                DuckDbWire.write(out, reply);
            } catch (DuckDbWire.FrameTooLarge e) {
                DuckDbWire.write(out, DuckDbWire.Reply.error(EngineError.sql(ErrorCategory.UNKNOWN, e.getMessage()
                        + ": select fewer or narrower columns")));
            }
        }
    }

    /** What {@link ReadOnlyExecutor} does on a pooled connection, on this process's one connection. */
    static DuckDbWire.Reply answer(Connection c, DatasourceConfig ds, DuckDbWire.Request r) {
        DatasourceConfig bounded = ds.withLimits(r.rowLimit(), Duration.ofMillis(r.timeoutMillis()));
        long start = System.nanoTime();
        try {
            PROFILE.resetSession(c);
            Execution e = switch (r.kind()) {
                case QUERY -> ReadOnlyExecutor.query(c, r.text(), bounded, start);
                case EXPLAIN -> ReadOnlyExecutor.explain(c, r.text(), bounded, start);
                case PREPARED -> ReadOnlyExecutor.prepared(c, r.text(), bounded, start);
                case ESTIMATE -> null;
            };
            return e != null ? DuckDbWire.Reply.of(e) : DuckDbWire.Reply.of(CostGuard.estimate(c, Dialect.DUCKDB, r.text(), bounded));
        } catch (SQLException e) {
            return DuckDbWire.Reply.error(PROFILE.errors().classify(e));
        } catch (RuntimeException e) {
            return DuckDbWire.Reply.failure(e.toString());
        }
    }

    /**
     * {@link ReadOnlyJdbc#open} without {@code DriverManager}, which would first load every JDBC driver on the executor's
     * classpath (Hive, Trino, Presto: ~2 s of CPU per process start); the properties are the same.
     */
    static Connection open(DatasourceConfig ds) throws SQLException {
        java.util.Properties props = new java.util.Properties();
        props.putAll(ReadOnlyJdbc.driverProperties(ds));
        Connection c = new org.duckdb.DuckDBDriver().connect(ds.jdbcUrl(), props);
        if (c == null) throw new SQLException("not a DuckDB URL: " + ds.safeUrl());
        try {
            c.setReadOnly(true);
        } catch (SQLException ignored) {
            // opened read-only already (the properties): the driver may refuse to change it
        }
        return c;
    }

    /** The datasource as the parent has it, for {@link ReadOnlyJdbc#open}: the same driver properties, so the same settings. */
    static DatasourceConfig datasource(DuckDbWire.Open open) {
        return new DatasourceConfig(open.name(), Dialect.DUCKDB, open.url(), null, null, Set.of(), Set.of(), Set.of(),
                DatasourceConfig.DEFAULT_ROW_LIMIT, DatasourceConfig.DEFAULT_QUERY_TIMEOUT, DatasourceConfig.DEFAULT_CONNECT_TIMEOUT,
                ValidationMode.LIMIT, 1, open.properties(),
                new Safeguards(open.memoryLimit(), open.threads(), open.tempSize(), null).withIsolation(Safeguards.IN_PROCESS, null));
    }

    /**
     * The driver copies its 70 MB library into the temp directory on every start and deletes it only on a clean exit; a
     * child killed at its timeout or its cap would leave one behind each time. Loaded is mapped: the file can go now.
     */
    private static void forgetExtractedLibrary() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/maps"))) {
                int at = line.indexOf('/');
                if (at > 0 && line.contains("libduckdb_java")) Files.deleteIfExists(Path.of(line.substring(at).replace(" (deleted)", "")));
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or already gone: the parent deletes the child's temp directory when it ends
        }
    }
}
