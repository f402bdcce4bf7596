package dev.sqloop.executor;

import static dev.sqloop.executor.ExecutorAssertions.fail;
import static dev.sqloop.executor.ExecutorAssertions.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.datasource.Safeguards;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.message.Execution;
import dev.sqloop.testkit.engines.DefogDatasets;
import dev.sqloop.testkit.engines.PostgresServer;
import dev.sqloop.parse.SqlCorpus;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 11 on the real (shared) PostgreSQL: functions that run SQL text are refused by the executor alone, the
 * executor enforces the allow-list on a table the role can read, and a pooled session comes back clean.
 */
class PostgresSafeguardsIT {
    private static DatasourceConfig open;
    private static DatasourceConfig onlyAuthor;
    private static ReadOnlyExecutor executor;
    private static PostgresServer pg;

    @BeforeAll
    static void start() throws Exception {
        pg = PostgresServer.shared();
        DefogDatasets.loadIntoPostgres(pg, "academic");
        try (Connection c = pg.superuser("academic"); Statement st = c.createStatement()) {
            // readable by the executor's role: only the allow-list stands between a query and it
            // in its own schema: PostgresExecutorIT counts the tables of public
            secrets(st, "probe", 1, "the-secret");
        }
        open = DatasourceConfig.of("academic_open", Dialect.POSTGRES, pg.jdbcUrl("academic"), PostgresServer.READER,
                PostgresServer.READER_PASSWORD).withLimits(50, Duration.ofSeconds(2)).withPool(1, Duration.ofSeconds(2));
        onlyAuthor = open.withAllowed(Set.of(), Set.of(), Set.of("author"));
        onlyAuthor = new DatasourceConfig("academic_author", onlyAuthor.dialect(), onlyAuthor.jdbcUrl(), onlyAuthor.user(),
                onlyAuthor.password(), Set.of(), Set.of(), Set.of("author"), 50, Duration.ofSeconds(2), Duration.ofSeconds(2),
                null, 1, java.util.Map.of());
        executor = new ReadOnlyExecutor();
    }

    @AfterAll
    static void close() {
        executor.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "SELECT query_to_xml('SELECT * FROM probe.probe_secrets', true, true, '')::text",
            "SELECT table_to_xml('probe.probe_secrets', true, true, '')::text",
            "SELECT database_to_xml(true, true, '')::text",
            "SELECT * FROM ts_stat('SELECT to_tsvector(secret) FROM probe.probe_secrets')",
            "SELECT pg_catalog.query_to_xml('SELECT * FROM probe.probe_secrets', true, true, '')",
            "SELECT set_config('search_path', 'pg_temp', false)",
            "SELECT pg_advisory_lock(1)",
            "SELECT pg_sleep(5)"})
    void shouldRefuseFunctionsThatRunSqlTextOrKeepSessionState(String sql) {
        for (DatasourceConfig ds : new DatasourceConfig[] {open, onlyAuthor}) {
            EngineError e = fail(executor, ds, sql);
            assertEquals(ErrorCategory.READ_ONLY_VIOLATION, e.category(), e.toString());
            assertFalse(e.message().contains("the-secret"));
        }
    }

    @Test
    void shouldEnforceTheAllowListWithoutTheValidator() {
        assertEquals(1, ok(executor, open, "SELECT * FROM probe.probe_secrets").rowCount(), "the role itself may read it");
        for (String sql : new String[] {"SELECT * FROM probe.probe_secrets", "SELECT * FROM public.probe_secrets",
                "SELECT a.name FROM author a WHERE EXISTS (SELECT 1 FROM probe.probe_secrets)",
                "SELECT * FROM author, LATERAL (SELECT secret FROM probe.probe_secrets) s",
                "SELECT * FROM academic.probe.probe_secrets"}) {
            assertEquals(ErrorCategory.TABLE_NOT_FOUND, fail(executor, onlyAuthor, sql).category(), sql);
        }
        Execution e = ok(executor, onlyAuthor, "SELECT count(*) FROM author");
        assertEquals(1, e.rowCount());
    }

    /**
     * A bare name carries no schema for the schema allow-list to check: the session's search path decides where it
     * resolves, so a bare name is let through only when every schema of that path is allowed. Before, a datasource
     * allowing only {@code probe} ran {@code SELECT * FROM author} in {@code public}, outside its list.
     */
    @Test
    void shouldCheckABareNameAgainstTheSchemasTheSessionResolvesItIn() {
        DatasourceConfig onlyProbe = schemas("academic_only_probe", pg.jdbcUrl("academic"), "probe"); // path: public
        EngineError bare = fail(executor, onlyProbe, "SELECT count(*) FROM author");
        assertEquals(ErrorCategory.TABLE_NOT_FOUND, bare.category(), bare.toString());
        assertTrue(bare.message().contains("without its schema") && bare.message().contains("schema public"), bare.message());
        assertEquals(1, ok(executor, onlyProbe, "SELECT * FROM probe.probe_secrets").rowCount());

        // the path probe, public with only public allowed: a bare name might resolve in probe, so none passes
        DatasourceConfig onlyPublic = schemas("academic_path_probe", pg.jdbcUrl("academic") + "?currentSchema=probe,public", "public");
        for (String sql : new String[] {"SELECT * FROM probe_secrets", "SELECT count(*) FROM author"}) {
            EngineError e = fail(executor, onlyPublic, sql);
            assertTrue(e.message().contains("schemas probe, public"), e.message());
        }
        assertEquals(1, ok(executor, onlyPublic, "SELECT count(*) FROM public.author").rowCount());

        // every schema of the path allowed: bare names run as the engine resolves them
        DatasourceConfig both = schemas("academic_path_both", pg.jdbcUrl("academic") + "?currentSchema=probe,public", "public,probe");
        assertEquals(1, ok(executor, both, "SELECT * FROM probe_secrets").rowCount());
        assertEquals(1, ok(executor, both, "SELECT count(*) FROM author").rowCount());
    }

    /**
     * PostgreSQL searches {@code pg_catalog} before the path: a bare {@code pg_stats} on a datasource allowing only
     * {@code public} read the statistics of {@code probe}'s table, its most common values the table's own data.
     */
    @Test
    void shouldRefuseABareNameThatResolvesInTheSystemCatalog() throws Exception {
        try (Connection c = pg.superuser("academic"); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE IF NOT EXISTS probe.probe_codes (code text)");
            st.execute("TRUNCATE probe.probe_codes");
            st.execute("INSERT INTO probe.probe_codes SELECT CASE WHEN i % 3 = 0 THEN 'other' ELSE 'the-secret' END FROM generate_series(1, 30) i");
            st.execute("GRANT SELECT ON probe.probe_codes TO " + PostgresServer.READER);
            st.execute("ANALYZE probe.probe_codes");
        }
        String stats = "SELECT most_common_vals::text FROM pg_stats WHERE tablename = 'probe_codes' AND attname = 'code'";
        assertTrue(ok(executor, open, stats).preview().toString().contains("the-secret"), "the role itself reads the statistics");
        DatasourceConfig onlyPublic = schemas("academic_stats_public", pg.jdbcUrl("academic"), "public");
        for (String sql : List.of(stats, "SELECT rolname FROM pg_roles", "SELECT count(*) FROM author a, PG_STATS s WHERE s.attname = a.name")) {
            EngineError e = fail(executor, onlyPublic, sql);
            assertEquals(ErrorCategory.TABLE_NOT_FOUND, e.category(), sql + ": " + e);
            assertTrue(e.message().contains("system schema pg_catalog"), e.message());
        }
        assertEquals(1, ok(executor, onlyPublic, "SELECT count(*) FROM author").rowCount(), "bare names of the path still run");
        assertTrue(ok(executor, schemas("academic_stats_catalog", pg.jdbcUrl("academic"), "public,pg_catalog"), stats)
                .preview().toString().contains("the-secret"), "a list naming pg_catalog admits it");
    }

    /**
     * An administrator's {@code ALTER ROLE … SET search_path} reaches the sessions opened after it: a bare name is checked
     * against where the session that runs it resolves it. Before, the path read once per datasource was trusted for the
     * process's life, and a new session's bare {@code probe_secrets} passed as a {@code public} name and read the
     * secret from {@code probe}, outside the allow-list.
     */
    @Test
    void shouldCheckABareNameAgainstTheSessionThatRunsItAfterTheRolesPathChanged() throws Exception {
        String role = "path_probe_" + Long.toHexString(System.nanoTime());
        try (Connection c = pg.superuser("academic"); Statement st = c.createStatement()) {
            st.execute("CREATE ROLE " + role + " LOGIN PASSWORD 'pw'");
            st.execute("GRANT USAGE ON SCHEMA probe TO " + role);
            st.execute("GRANT SELECT ON ALL TABLES IN SCHEMA probe, public TO " + role);
        }
        DatasourceConfig onlyPublic = DatasourceConfig.of("academic_role_path", Dialect.POSTGRES, pg.jdbcUrl("academic"), role, "pw")
                .withLimits(50, Duration.ofSeconds(2)).withPool(1, Duration.ofSeconds(2))
                .withAllowed(Set.of(), Set.of("public"), Set.of());
        assertEquals(1, ok(executor, onlyPublic, "SELECT count(*) FROM author").rowCount(), "path: public, allowed");
        assertEquals(ErrorCategory.TABLE_NOT_FOUND, fail(executor, onlyPublic, "SELECT * FROM probe_secrets").category(),
                "not in public: the engine does not find it");
        try (Connection c = pg.superuser("academic"); Statement st = c.createStatement()) {
            st.execute("ALTER ROLE " + role + " SET search_path = probe, public");
        }
        executor.retireConnections(onlyPublic); // the next query gets a session opened after the change
        EngineError e = fail(executor, onlyPublic, "SELECT * FROM probe_secrets");
        assertEquals(ErrorCategory.TABLE_NOT_FOUND, e.category(), e.toString());
        assertTrue(e.message().contains("without its schema") && e.message().contains("schemas probe, public"), e.message());
        assertFalse(e.message().contains("the-secret"));
        assertEquals(1, ok(executor, onlyPublic, "SELECT count(*) FROM public.author").rowCount());
    }

    /**
     * PostgreSQL keeps a quoted name's case: {@code "Probe"} is a schema of its own beside {@code probe}. An allow-list
     * naming {@code probe} must not admit {@code "Probe"} — names were compared ignoring case, and a query on
     * {@code "Probe".probe_secrets} read that schema's secret — and one naming {@code "Probe"}, quoted, admits it alone.
     * The same for a table list, and for a search path that resolves bare names in {@code "Probe"}.
     */
    @Test
    void shouldTellASchemaFromItsQuotedNamesakeOfAnotherCase() throws Exception {
        String role = "case_probe_" + Long.toHexString(System.nanoTime());
        try (Connection c = pg.superuser("academic"); Statement st = c.createStatement()) {
            secrets(st, "\"Probe\"", 2, "the-other-secret");
            secrets(st, "\"Ärger\"", 3, "the-third-secret");
            st.execute("CREATE ROLE " + role + " LOGIN PASSWORD 'pw'");
            st.execute("GRANT USAGE ON SCHEMA \"Probe\", probe TO " + role);
            st.execute("GRANT SELECT ON ALL TABLES IN SCHEMA \"Probe\", probe TO " + role);
            st.execute("ALTER ROLE " + role + " SET search_path = \"Probe\"");
        }
        try {
            assertEquals(List.of(2), ok(executor, open, "SELECT id FROM \"Probe\".probe_secrets").preview().getFirst(),
                    "the role itself may read it");
            DatasourceConfig lower = schemas("academic_case_lower", pg.jdbcUrl("academic"), "probe");
            for (String sql : List.of("SELECT * FROM \"Probe\".probe_secrets", "SELECT * FROM academic.\"Probe\".probe_secrets",
                    "SELECT secret FROM probe.probe_secrets UNION ALL SELECT secret FROM \"Probe\".probe_secrets")) {
                EngineError e = fail(executor, lower, sql);
                assertEquals(ErrorCategory.TABLE_NOT_FOUND, e.category(), sql + ": " + e);
                assertTrue(e.message().contains("not in the allow-list"), e.message());
                assertFalse(e.message().contains("the-other-secret"));
            }
            // unquoted, any case, or quoted in lower case: the engine's probe
            for (String sql : List.of("SELECT id FROM probe.probe_secrets", "SELECT id FROM PROBE.probe_secrets",
                    "SELECT id FROM \"probe\".probe_secrets")) {
                assertEquals(List.of(1), ok(executor, lower, sql).preview().getFirst(), sql);
            }

            DatasourceConfig quoted = schemas("academic_case_quoted", pg.jdbcUrl("academic"), "\"Probe\"");
            assertEquals(List.of(2), ok(executor, quoted, "SELECT id FROM \"Probe\".probe_secrets").preview().getFirst());
            for (String sql : List.of("SELECT * FROM probe.probe_secrets", "SELECT * FROM Probe.probe_secrets")) {
                assertEquals(ErrorCategory.TABLE_NOT_FOUND, fail(executor, quoted, sql).category(), sql);
            }

            DatasourceConfig table = new DatasourceConfig("academic_case_table", open.dialect(), open.jdbcUrl(), open.user(), open.password(),
                    Set.of(), Set.of(), Set.of("probe.probe_secrets"), 50, Duration.ofSeconds(2), Duration.ofSeconds(2), null, 1,
                    java.util.Map.of());
            assertEquals(1, ok(executor, table, "SELECT * FROM probe.probe_secrets").rowCount());
            assertEquals(ErrorCategory.TABLE_NOT_FOUND, fail(executor, table, "SELECT * FROM \"Probe\".probe_secrets").category());

            // PostgreSQL folds only the ASCII letters of an unquoted name: "Ärger" is not the ärger a list names, and an
            // entry written ÄRGER names "Ärger" (unquoted in a query, such a name is refused by the lexical guard)
            DatasourceConfig umlaut = schemas("academic_case_umlaut", pg.jdbcUrl("academic"), "ärger");
            for (String sql : List.of("SELECT * FROM ÄRGER.probe_secrets", "SELECT * FROM \"Ärger\".probe_secrets")) {
                EngineError e = fail(executor, umlaut, sql);
                assertFalse(e.message().contains("the-third-secret"), e.toString());
            }
            assertEquals(ErrorCategory.TABLE_NOT_FOUND, fail(executor, umlaut, "SELECT * FROM \"Ärger\".probe_secrets").category());
            assertEquals(List.of(3), ok(executor, schemas("academic_case_umlaut_upper", pg.jdbcUrl("academic"), "ÄRGER"),
                    "SELECT id FROM \"Ärger\".probe_secrets").preview().getFirst(), "the entry folded as PostgreSQL folds a name");

            // bare names resolve in "Probe": a list naming probe lets none through, one naming "Probe" does
            DatasourceConfig pathLower = DatasourceConfig.of("academic_case_path_lower", Dialect.POSTGRES, pg.jdbcUrl("academic"), role, "pw")
                    .withLimits(50, Duration.ofSeconds(2)).withPool(1, Duration.ofSeconds(2)).withAllowed(Set.of(), Set.of("probe"), Set.of());
            EngineError bare = fail(executor, pathLower, "SELECT * FROM probe_secrets");
            assertEquals(ErrorCategory.TABLE_NOT_FOUND, bare.category(), bare.toString());
            assertTrue(bare.message().contains("without its schema") && bare.message().contains("schema Probe"), bare.message());
            DatasourceConfig pathQuoted = DatasourceConfig.of("academic_case_path_quoted", Dialect.POSTGRES, pg.jdbcUrl("academic"), role, "pw")
                    .withLimits(50, Duration.ofSeconds(2)).withPool(1, Duration.ofSeconds(2)).withAllowed(Set.of(), Set.of("\"Probe\""), Set.of());
            assertEquals(List.of(2), ok(executor, pathQuoted, "SELECT id FROM probe_secrets").preview().getFirst());
        } finally {
            // other tests of this database read every schema's tables
            try (Connection c = pg.superuser("academic"); Statement st = c.createStatement()) {
                st.execute("DROP SCHEMA IF EXISTS \"Probe\" CASCADE");
                st.execute("DROP SCHEMA IF EXISTS \"Ärger\" CASCADE");
            }
        }
    }

    /** {@code schema.probe_secrets} holding one row, readable by the executor's role. */
    private static void secrets(Statement st, String schema, int id, String secret) throws java.sql.SQLException {
        st.execute("CREATE SCHEMA IF NOT EXISTS " + schema);
        st.execute("CREATE TABLE IF NOT EXISTS " + schema + ".probe_secrets (id int, secret text)");
        st.execute("TRUNCATE " + schema + ".probe_secrets");
        st.execute("INSERT INTO " + schema + ".probe_secrets VALUES (" + id + ", '" + secret + "')");
        st.execute("GRANT USAGE ON SCHEMA " + schema + " TO " + PostgresServer.READER);
        st.execute("GRANT SELECT ON " + schema + ".probe_secrets TO " + PostgresServer.READER);
    }

    private static DatasourceConfig schemas(String name, String url, String allowed) {
        return DatasourceConfig.of(name, Dialect.POSTGRES, url, PostgresServer.READER, PostgresServer.READER_PASSWORD)
                .withLimits(50, Duration.ofSeconds(2)).withPool(1, Duration.ofSeconds(2))
                .withAllowed(Set.of(), Set.of(allowed.split(",")), Set.of());
    }

    /**
     * What a query that bypassed every check could leave in its session — run on the executor's own path, pool size 1 —
     * is gone once it returns: the probe saw advisory lock 42 still held by an idle pooled session, because the reset
     * ran before the next query, not after this one.
     */
    @Test
    void shouldLeaveNoSessionStateBehindAQueryEvenWithTheChecksBypassed() throws Exception {
        for (String sql : List.of("SELECT set_config('search_path', 'pg_temp', false)", "SELECT set_config('statement_timeout', '0', false)",
                "SELECT set_config('standard_conforming_strings', 'off', false)", "SELECT pg_advisory_lock(424242)")) {
            assertInstanceOf(QueryRunner.Succeeded.class, executor.runUnchecked(open, sql), sql);
        }
        // while that connection sits idle in the pool, no session holds the lock and another can take it
        try (Connection other = pg.superuser("academic"); Statement st = other.createStatement()) {
            assertEquals("0", scalar(st, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'"));
            assertEquals("t", scalar(st, "SELECT pg_try_advisory_lock(424242)"));
            st.execute("SELECT pg_advisory_unlock(424242)");
        }
        assertEquals("\"$user\", public", value(executor.runUnchecked(open, "SELECT current_setting('search_path')")));
        assertEquals("3s", value(executor.runUnchecked(open, "SELECT current_setting('statement_timeout')")), "the startup option is back");
        assertEquals("on", value(executor.runUnchecked(open, "SELECT current_setting('standard_conforming_strings')")));
        assertEquals("on", value(executor.runUnchecked(open, "SELECT current_setting('default_transaction_read_only')")), "still read-only");
    }

    /**
     * pgjdbc rewrites JDBC escapes ({@code {fn ucase('a')}}) before sending a text unless told not to: the executor's
     * statements send the text as written, so the engine never runs a text the checks did not read.
     */
    @Test
    void shouldSendTheTextWithoutJdbcEscapeProcessing() throws Exception {
        String escaped = "SELECT {fn ucase('a')} AS u";
        try (Connection c = pg.reader(pg.jdbcUrl("academic")); Statement st = c.createStatement()) {
            assertEquals("A", scalar(st, escaped), "pgjdbc's default rewrites the escape");
        }
        QueryRunner.Result r = executor.runUnchecked(open, escaped);
        assertEquals(ErrorCategory.SYNTAX_ERROR, assertInstanceOf(QueryRunner.Failed.class, r, r::toString).error().category());
    }

    /**
     * The engine bounds what one query may spill, with sqloop's checks bypassed: the role may set {@code temp_file_limit}
     * (testkit grants it, as a deployment should) and the executor's sessions start with the datasource's {@code _TEMP_SIZE}.
     */
    @Test
    void shouldStopAQueryAtTheTempFileLimit() throws Exception {
        DatasourceConfig small = new DatasourceConfig("academic_spill", Dialect.POSTGRES, open.jdbcUrl(), open.user(), open.password(),
                Set.of(), Set.of(), Set.of(), 50, Duration.ofSeconds(30), Duration.ofSeconds(2), null, 1, java.util.Map.of(),
                new Safeguards(null, 1, "8MB", null, "1MB"));
        String spill = "SELECT count(*) FROM (SELECT g, md5(g::text) AS h FROM generate_series(1, 3000000) g ORDER BY h) s";
        QueryRunner.Result r = executor.runUnchecked(small, spill);
        EngineError e = assertInstanceOf(QueryRunner.Failed.class, r, r::toString).error();
        assertEquals(ErrorCategory.TIMEOUT, e.category(), e.toString());
        assertTrue(e.message().contains("temp_file_limit"), e.message());
        assertEquals("8MB", value(executor.runUnchecked(small, "SELECT current_setting('temp_file_limit')")));
        assertEquals("1MB", value(executor.runUnchecked(small, "SELECT current_setting('work_mem')")));
    }

    /** PostgreSQL bounds one value itself (1 GB): with sqloop's value-size checks bypassed, the engine refuses the bomb. */
    @Test
    void shouldLetTheEngineRefuseAValuePastItsOwnBound() {
        QueryRunner.Result r = executor.runUnchecked(open, "SELECT length(repeat('x', 2000000000))");
        EngineError e = assertInstanceOf(QueryRunner.Failed.class, r, r::toString).error();
        assertEquals(ErrorCategory.TIMEOUT, e.category(), e.toString());
        assertEquals(ErrorCategory.TIMEOUT, fail(executor, open, "SELECT length(repeat('x', 2000000000))").category(),
                "and sqloop refuses it before the engine");
    }

    /** A role that may not set {@code temp_file_limit} (a PostgreSQL before 15, or no grant) still runs queries. */
    @Test
    void shouldRunWithTheRolesOwnTempFileLimitWhenTheRoleMayNotSetIt() throws Exception {
        try (Connection c = pg.superuser("postgres"); Statement st = c.createStatement()) {
            st.execute("REVOKE SET ON PARAMETER temp_file_limit FROM " + PostgresServer.READER);
        }
        try (ReadOnlyExecutor fresh = new ReadOnlyExecutor()) {
            assertEquals("-1", value(fresh.runUnchecked(open, "SELECT current_setting('temp_file_limit')")), "the role's own value");
            assertEquals(1, ok(fresh, open, "SELECT count(*) FROM author").rowCount());
        } finally {
            try (Connection c = pg.superuser("postgres"); Statement st = c.createStatement()) {
                st.execute("GRANT SET ON PARAMETER temp_file_limit TO " + PostgresServer.READER);
            }
        }
    }

    /** A wait behind another session's lock ends at {@code lock_timeout} (5 s), well before the query timeout. */
    @Test
    void shouldEndAWaitBehindAnotherSessionsLockAtTheLockTimeout() throws Exception {
        DatasourceConfig patient = open.withLimits(50, Duration.ofSeconds(30));
        patient = new DatasourceConfig("academic_patient", patient.dialect(), patient.jdbcUrl(), patient.user(), patient.password(),
                Set.of(), Set.of(), Set.of(), 50, Duration.ofSeconds(30), Duration.ofSeconds(2), null, 1, java.util.Map.of());
        try (Connection holder = pg.superuser("academic"); Statement st = holder.createStatement()) {
            holder.setAutoCommit(false);
            st.execute("LOCK TABLE author IN ACCESS EXCLUSIVE MODE");
            long t0 = System.nanoTime();
            EngineError e = fail(executor, patient, "SELECT count(*) FROM author");
            long tookMs = (System.nanoTime() - t0) / 1_000_000;
            holder.rollback();
            assertEquals(ErrorCategory.TIMEOUT, e.category(), e.toString());
            assertTrue(e.message().contains("lock timeout"), e.message());
            assertTrue(tookMs < 20_000, "ended by lock_timeout, not the 30 s query timeout: " + tookMs + " ms");
        }
    }

    private static Object value(QueryRunner.Result r) {
        return assertInstanceOf(QueryRunner.Succeeded.class, r, r::toString).execution().preview().getFirst().getFirst();
    }

    /**
     * PostgreSQL's {@code pg_} functions and its catalog lookups read objects by name or oid, past the allow-list: a
     * view's definition (holding the secret as a literal here), a table's comment, its live rows counted by the
     * statistics, its size, the role's privileges on it, its existence, and — cast to regclass — the name behind any
     * number, so every relation of the database. The role itself may call each — shown on its
     * own connection — so only the executor stands between a query and them, allow-list or not; the pure {@code pg_}
     * functions still run.
     */
    @Test
    void shouldRefuseCatalogFunctionsThatReadObjectsOutsideTheAllowList() throws Exception {
        try (Connection c = pg.superuser("academic"); Statement st = c.createStatement()) {
            st.execute("CREATE OR REPLACE VIEW probe.probe_view AS SELECT id FROM probe.probe_secrets WHERE secret <> 'the-view-secret'");
            st.execute("COMMENT ON TABLE probe.probe_secrets IS 'the-comment-secret'");
        }
        String viewdef = "SELECT pg_get_viewdef('probe.probe_view'::regclass)";
        String comment = "SELECT obj_description('probe.probe_secrets'::regclass)";
        long oid;
        try (Connection c = pg.superuser("academic"); Statement st = c.createStatement()) {
            oid = Long.parseLong(scalar(st, "SELECT 'probe.probe_secrets'::regclass::oid"));
        }
        // numbers to names: every relation of the database, whatever the allow-list
        String names = "SELECT string_agg(i::regclass::text, ',') FROM generate_series(" + (oid - 3) + ", " + (oid + 3) + ") i";
        try (Connection c = PostgresServer.reader(pg.jdbcUrl("academic")); Statement st = c.createStatement()) {
            assertTrue(scalar(st, viewdef).contains("the-view-secret"), "the role itself reads the definition");
            assertEquals("the-comment-secret", scalar(st, comment), "and the comment");
            assertTrue(scalar(st, names).contains("probe.probe_secrets"), "and the names of every relation");
        }
        for (String sql : List.of(viewdef, comment,
                "SELECT pg_catalog.pg_get_viewdef('probe.probe_view'::regclass, true)",
                "SELECT pg_stat_get_live_tuples('probe.probe_secrets'::regclass)",
                "SELECT pg_relation_size('probe.probe_secrets')",
                "SELECT has_table_privilege('probe.probe_secrets', 'SELECT')",
                "SELECT to_regclass('probe.probe_secrets') IS NOT NULL",
                names, "SELECT CAST('probe.probe_secrets' AS regclass) IS NOT NULL",
                "SELECT a.name FROM author a WHERE \"pg_get_viewdef\"('probe.probe_view'::regclass) LIKE '%secret%'")) {
            for (DatasourceConfig ds : new DatasourceConfig[] {open, onlyAuthor}) {
                EngineError e = fail(executor, ds, sql);
                assertEquals(ErrorCategory.READ_ONLY_VIOLATION, e.category(), ds.name() + ": " + sql + ": " + e);
                assertFalse(e.message().contains("the-view-secret") || e.message().contains("the-comment-secret"), e.message());
            }
        }
        assertEquals(1, ok(executor, onlyAuthor, "SELECT pg_typeof(name)::text, pg_column_size(name), pg_size_pretty(1024::bigint)"
                + " FROM author LIMIT 1").rowCount(), "functions of their arguments alone still run");
    }

    /**
     * Issue 44's finds past the deny-list, refused by the allow-list built from pg_proc: {@code row_security_active} tells
     * whether a table exists, a table's name as a type lists its columns — each shown through the role first — and a
     * function the list does not hold is refused as unsupported (a datasource may add its own with _FUNCTIONS).
     */
    @Test
    void shouldRefuseWhatTheFunctionAllowListDoesNotHold() throws Exception {
        String exists = "SELECT row_security_active('probe.probe_secrets')";
        String columns = "SELECT to_json(json_populate_record(NULL::probe.probe_secrets, '{}'))::text";
        try (Connection c = PostgresServer.reader(pg.jdbcUrl("academic")); Statement st = c.createStatement()) {
            assertEquals("f", scalar(st, exists), "the role learns the table exists");
            assertTrue(scalar(st, columns).contains("\"secret\""), "and its columns, without any grant on them");
        }
        for (String sql : List.of(exists, columns, "SELECT NULL::probe.probe_secrets", "SELECT CAST(NULL AS probe.probe_secrets)",
                "SELECT version()", "SELECT current_setting('data_directory')")) {
            for (DatasourceConfig ds : new DatasourceConfig[] {open, onlyAuthor}) {
                EngineError e = fail(executor, ds, sql);
                assertEquals(ErrorCategory.READ_ONLY_VIOLATION, e.category(), ds.name() + ": " + sql + ": " + e);
                assertFalse(e.message().contains("secret\""), e.message());
            }
        }
        try (Connection c = pg.superuser("academic"); Statement st = c.createStatement()) {
            st.execute("CREATE OR REPLACE FUNCTION public.shout(t text) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT upper(t) || '!' $$");
        }
        EngineError unlisted = fail(executor, open, "SELECT shout(name) FROM author LIMIT 1");
        assertEquals(ErrorCategory.UNSUPPORTED_FUNCTION, unlisted.category(), unlisted.toString());
        assertTrue(unlisted.message().contains("allow-list"), unlisted.message());
        DatasourceConfig withUdf = new DatasourceConfig("academic_udf", Dialect.POSTGRES, open.jdbcUrl(), open.user(), open.password(),
                Set.of(), Set.of(), Set.of(), 50, Duration.ofSeconds(2), Duration.ofSeconds(2), null, 1, java.util.Map.of(),
                new Safeguards(null, 1, null, null, null, Set.of("shout")));
        assertTrue(ok(executor, withUdf, "SELECT shout(name) FROM author LIMIT 1").preview().toString().contains("!"),
                "a function the datasource adds runs");
        assertEquals(ErrorCategory.READ_ONLY_VIOLATION, fail(executor, new DatasourceConfig("academic_udf2", Dialect.POSTGRES,
                open.jdbcUrl(), open.user(), open.password(), Set.of(), Set.of(), Set.of(), 50, Duration.ofSeconds(2),
                Duration.ofSeconds(2), null, 1, java.util.Map.of(), new Safeguards(null, 1, null, null, null, Set.of("row_security_active"))),
                exists).category(), "an addition cannot bring back a refused function");
    }

    @Test
    void shouldStopTheWholeCorpusBeforeTheEngineAndChangeNothing() throws Exception {
        long before = rows();
        for (SqlCorpus.Case c : SqlCorpus.load(SqlCorpus.EVASIONS)) {
            if (c.dialect() != Dialect.POSTGRES) continue;
            QueryRunner.Result r = executor.run(open, c.sql());
            assertTrue(r instanceof QueryRunner.Failed, c.why() + ": " + c.sql());
        }
        assertEquals(before, rows());
        try (Connection c = pg.superuser("academic"); Statement st = c.createStatement()) {
            assertEquals("0", scalar(st, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'"));
        }
    }

    private static long rows() throws Exception {
        try (Connection c = pg.superuser("academic"); Statement st = c.createStatement()) {
            return Long.parseLong(scalar(st, "SELECT (SELECT count(*) FROM author) + (SELECT count(*) FROM probe.probe_secrets)"
                    + " + (SELECT count(*) FROM pg_class WHERE relnamespace = 'public'::regnamespace)"));
        }
    }

    private static String scalar(Statement st, String sql) throws Exception {
        try (ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }
}
