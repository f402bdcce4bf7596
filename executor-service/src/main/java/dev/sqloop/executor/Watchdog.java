package dev.sqloop.executor;

import dev.sqloop.common.datasource.DatasourceConfig;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Cancels a statement server-side ({@link Statement#cancel()}) when the driver's own query timeout did not end it:
 * HiveServer2 and the Spark Thrift Server do not stop work on a client-side timeout, and DuckDB checks its
 * interrupt flag only between vectors. Fires at the query timeout plus one second, then every second until the
 * statement returns (a cancel can arrive before the engine has registered the operation).
 */
final class Watchdog implements AutoCloseable {
    static final long GRACE_MS = 1000;
    private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "sqloop-executor-watchdog");
        t.setDaemon(true);
        return t;
    });

    private final ScheduledFuture<?> task;

    private Watchdog(ScheduledFuture<?> task) {
        this.task = task;
    }

    static Watchdog arm(Statement st, DatasourceConfig ds) {
        long delay = ds.queryTimeout().toMillis() + GRACE_MS;
        return new Watchdog(TIMER.scheduleWithFixedDelay(() -> {
            try {
                st.cancel();
            } catch (SQLException | RuntimeException ignored) {
                // already finished or closed: nothing to cancel
            }
        }, delay, 1000, TimeUnit.MILLISECONDS));
    }

    @Override
    public void close() {
        task.cancel(false);
    }
}
