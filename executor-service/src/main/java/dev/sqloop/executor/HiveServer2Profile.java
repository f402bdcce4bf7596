package dev.sqloop.executor;

import com.zaxxer.hikari.HikariConfig;
import dev.sqloop.common.Dialect;
import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.datasource.HiveServer2Url;
import dev.sqloop.common.datasource.ReadOnlyJdbc;

/**
 * Spark Thrift Server ({@code sparksql}) and HiveServer2 ({@code hive}) through hive-jdbc: one protocol, one
 * driver, one classifier ({@link HiveErrors}). What differs between the two dialects:
 * <ul>
 *   <li>Row limit: Spark gets the LIMIT wrapper — it keeps an ORDER BY inside the subquery and stops computing
 *       at the limit, whereas without it the Thrift Server collects the whole result into its driver's memory
 *       before the first fetch. Hive is not wrapped (only {@code setMaxRows}, which stops fetching): Hive 3+
 *       removes an ORDER BY from a subquery ({@code hive.remove.orderby.in.subquery}), so the wrapper would return
 *       arbitrary rows.</li>
 *   <li>Explain mode: Spark's {@code EXPLAIN} reports analysis errors as a plan text, not as an error, so Spark is
 *       planned as the query under {@code LIMIT 0}, which Spark's optimizer turns into an empty relation without
 *       running a job, while analysis errors arrive as ordinary errors. Hive's {@code EXPLAIN} compiles the query and
 *       fails on its errors.</li>
 * </ul>
 *
 * <p>Neither engine has a read-only session: hive-jdbc even refuses {@code setReadOnly(true)}. The executor's
 * {@link ReadOnlyGuard} (and the validator before it) is the client-side defence; a deployment must add the
 * server-side one — a user whose grants are SELECT-only (Hive's SQL-standard authorization, or Apache Ranger's
 * Hive/Spark plugin), and for Spark a Thrift Server whose warehouse and data files the service user cannot write.
 *
 * <p>A server that stops answering (SIGSTOP, network partition) must not hang a worker: every Thrift call gets
 * hive-jdbc's {@code socketTimeout}, longer than the query timeout plus the server's 5 s status long-poll.
 */
final class HiveServer2Profile implements EngineProfile {
    private static final ErrorClassifier ERRORS = new HiveErrors();
    /** Above the query timeout: status calls long-poll the server for up to 5 s (hive.server2.long.polling.timeout). */
    static final long SOCKET_MARGIN_MS = 15_000;

    private final Dialect dialect;

    HiveServer2Profile(Dialect dialect) {
        if (dialect != Dialect.HIVE && dialect != Dialect.SPARKSQL) throw new IllegalArgumentException(dialect + " is not HiveServer2");
        this.dialect = dialect;
    }

    @Override
    public void configure(HikariConfig pool, DatasourceConfig ds) {
        long socketTimeoutMs = ds.queryTimeout().toMillis() + SOCKET_MARGIN_MS;
        String url = HiveServer2Url.withConfiguration(ReadOnlyJdbc.url(ds), serverLimits(dialect, ds));
        pool.setJdbcUrl(HiveServer2Url.withSessionVariable(url, "socketTimeout", Long.toString(socketTimeoutMs)));
        pool.setDriverClassName("org.apache.hive.jdbc.HiveDriver");
        pool.setUsername(ds.user() == null ? "sqloop" : ds.user());
        if (ds.password() != null) pool.setPassword(ds.password());
        ds.properties().forEach(pool::addDataSourceProperty);
        // HiveConnection.setReadOnly(true) throws "Enabling read-only mode not supported": see the class comment
        pool.setReadOnly(false);
    }

    /**
     * The server's own bound on every statement of the session, a second after the driver's (which each statement also
     * sends): a query whose client went away, or that runs without a statement timeout, still ends on the server. Spark
     * also interrupts a cancelled query's running tasks instead of letting them run to their end.
     */
    static java.util.Map<String, String> serverLimits(Dialect dialect, DatasourceConfig ds) {
        long seconds = EngineProfile.timeoutSeconds(ds) + 1;
        return dialect == Dialect.SPARKSQL
                ? java.util.Map.of("spark.sql.thriftServer.queryTimeout", seconds + "s", "spark.sql.thriftServer.interruptOnCancel", "true")
                : java.util.Map.of("hive.query.timeout.seconds", seconds + "s");
    }

    @Override
    public String limited(String query, int limit) {
        return dialect == Dialect.SPARKSQL ? EngineProfile.super.limited(query, limit) : query;
    }

    @Override
    public String explain(String query) {
        return dialect == Dialect.SPARKSQL ? EngineProfile.super.limited(query, 0) : "EXPLAIN " + query;
    }

    @Override
    public ErrorClassifier errors() {
        return ERRORS;
    }

    /** A literal that substitution would change must come back as written (ReadOnlyJdbc#textSettings turns it off). */
    static final String SUBSTITUTION_PROBE = "${system:file.separator}";

    @Override
    public String sessionProblem(java.sql.Connection c) throws java.sql.SQLException {
        try (java.sql.Statement st = c.createStatement();
             java.sql.ResultSet rs = st.executeQuery("SELECT '" + SUBSTITUTION_PROBE + "'")) {
            String back = rs.next() ? rs.getString(1) : null;
            return SUBSTITUTION_PROBE.equals(back) ? null
                    : "substitutes ${…} variables in query text before parsing it ('" + SUBSTITUTION_PROBE + "' came back as '" + back
                    + "'): set hive.variable.substitute=false" + (dialect == Dialect.SPARKSQL ? " and spark.sql.variable.substitute=false" : "")
                    + " on the server, or let the session set them";
        }
    }
}
