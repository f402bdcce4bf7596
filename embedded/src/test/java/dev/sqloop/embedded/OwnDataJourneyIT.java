package dev.sqloop.embedded;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sqloop.cli.GatewayClient;
import dev.sqloop.common.JsonCodec;
import dev.sqloop.testkit.Ports;
import dev.sqloop.testkit.TestDirs;
import dev.sqloop.testkit.engines.PostgresServer;
import dev.sqloop.testkit.llm.Fault;
import dev.sqloop.testkit.llm.OracleResponder;
import dev.sqloop.testkit.llm.RecordedRequest;
import dev.sqloop.testkit.llm.SimulatedLlm;
import java.math.BigDecimal;
import java.math.MathContext;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The README's "Your own data in five steps", run as a new user runs it: a PostgreSQL database of their own with a few
 * tables, the README's SQL for the logins, then {@code ./sqloop serve}, {@code seed}, {@code submit --wait},
 * {@code status} and {@code eval} through the real launcher, each in a process of its own, with the README's
 * {@code SQLOOP_*} settings. The LLM is the simulated one, over HTTP. Asserts that the seeds reach the LLM's prompts,
 * the batch's counts (exit code 3 for its one failed question), and the eval's VA/EX/TS/EM against a count made here
 * with plain JDBC from the same {@code questions.jsonl}, on the database and its neighbour databases.
 */
class OwnDataJourneyIT {
    // Choice: the test reads the commands from README.md's own-data section (its sql and bash blocks, see Readme), not a copy.
    private static final String SECTION = "## Your own data";

    /** What the user's examples.yaml holds: question → SQL they curated. */
    private static final Map<String, String> SEEDS = ordered(
            "How many products are there in each category?", "SELECT category, COUNT(*) AS products FROM products GROUP BY category",
            "What is the total quantity ordered by each customer?",
            "SELECT c.name, SUM(o.quantity) AS quantity FROM orders o JOIN customers c ON c.id = o.customer_id GROUP BY c.name",
            "How many orders were placed in each month?",
            "SELECT date_trunc('month', ordered_on) AS month, COUNT(*) AS orders FROM orders GROUP BY 1");

    /** The batch (questions.jsonl): question → the SQL the simulated LLM knows for it. */
    private static final Map<String, String> BATCH = ordered(
            "How many customers are there in each city?", "SELECT city, COUNT(*) AS customers FROM customers GROUP BY city",
            "What is the total revenue of each product category?",
            "SELECT p.category, SUM(o.quantity * p.price) AS revenue FROM orders o JOIN products p ON p.id = o.product_id GROUP BY p.category",
            "How many orders are there in total?", "SELECT COUNT(*) AS orders FROM orders",
            "What is the largest quantity in a single order?", "SELECT MAX(quantity) AS quantity FROM orders");
    /** A question of the batch and of the gold set the LLM has no answer for: it fails, whatever the budget. */
    private static final String UNANSWERABLE = "Which customers are likely to order again next week?";

    /** The user's gold set (gold.csv): question → gold SQL. */
    private static final Map<String, String> GOLD = ordered(
            "How many products cost more than 20?", "SELECT COUNT(*) AS products FROM products WHERE price > 20",
            "What is the total quantity ordered of each product?",
            "SELECT p.name, SUM(o.quantity) AS quantity FROM orders o JOIN products p ON p.id = o.product_id GROUP BY p.name",
            "Which product has the highest price?", "SELECT name FROM products ORDER BY price DESC LIMIT 1",
            "What is the average price of the products in each category?",
            "SELECT category, AVG(price) AS average_price FROM products GROUP BY category",
            "How many orders were placed from each city?",
            "SELECT c.city, COUNT(*) AS orders FROM orders o JOIN customers c ON c.id = o.customer_id GROUP BY c.city",
            UNANSWERABLE, "SELECT name FROM customers ORDER BY name");

    /**
     * Where the simulated LLM answers other than the gold: right by luck (a hard-coded id that holds the highest price
     * here, not on a neighbour database: EX without TS), and plain wrong (runs, another result: VA without EX).
     */
    private static final Map<String, String> LLM_ANSWERS_INSTEAD = Map.of(
            "Which product has the highest price?", "SELECT name FROM products WHERE id = 4",
            "What is the average price of the products in each category?",
            "SELECT category, MAX(price) AS average_price FROM products GROUP BY category");

    /** First answers with a mistake the repair loop must fix (the rest are right at once). */
    private static final Map<String, Fault> FAULTS = Map.of(
            "How many customers are there in each city?", Fault.WRONG_COLUMN,
            "What is the total revenue of each product category?", Fault.SYNTAX_SLIP,
            "How many products cost more than 20?", Fault.KEYWORD_TYPO,
            "What is the total quantity ordered of each product?", Fault.WRONG_COLUMN);

    @Test
    void shouldRunTheReadmesOwnDataStepsAsWrittenAndReportFiguresThatRecount() throws Exception {
        Path home = Path.of(System.getProperty("sqloop.home", "..")).toAbsolutePath().normalize();
        Readme readme = Readme.parse(Files.readString(home.resolve("README.md")));
        assertEquals(List.of("serve", "seed", "submit", "status", "eval"), readme.commands().stream().map(c -> c.args().getFirst()).toList(),
                "the README's own-data steps changed: extend this test to run the new ones");
        Path work = TestDirs.create("sqloop-own-data-it-");

        // the user's database: a private cluster, so the README's CREATE ROLE meets no role testkit made
        try (PostgresServer pg = PostgresServer.start();
             SimulatedLlm llm = SimulatedLlm.start(oracle(), 45)) {
            String datasource = readme.datasource();
            String database = readme.database();
            pg.createDatabase(database);
            for (String role : readme.rolesCreated()) dropRole(pg, role);
            try (Connection c = pg.superuser(database); Statement st = c.createStatement()) {
                for (String sql : userTables()) st.execute(sql);
                for (String sql : readme.sql()) st.execute(sql); // step 1, as written
            }

            int gatewayPort = Ports.free();
            String gateway = "http://127.0.0.1:" + gatewayPort;
            Path secret = Files.writeString(work.resolve("reader-password"), readme.readerPassword() + "\n");
            // the user's values for the README's placeholders: their host, their secret file, their LLM and key
            Map<String, String> env = new LinkedHashMap<>();
            readme.exports().forEach((k, v) -> env.put(k, userValue(k, v, pg, secret, llm)));
            // the test's own, not the user's: a free gateway port (8080 may be taken here) the client commands are told
            // about as the README says (SQLOOP_GATEWAY_URL), free management ports, and a data dir outside the checkout
            env.put("SQLOOP_GATEWAY_PORT", Integer.toString(gatewayPort));
            env.put("SQLOOP_GATEWAY_URL", gateway);
            env.put("SQLOOP_MANAGEMENT_PORT", "0");
            env.put("SQLOOP_DATA_DIR", work.resolve("serve-data").toString());

            Path examples = work.resolve(readme.command("seed").args().get(1));
            Path questions = work.resolve(readme.command("submit").args().get(1));
            Path goldFile = work.resolve(readme.command("eval").args().get(1));
            writeUserFiles(examples, questions, goldFile, datasource);

            Launch serve = Launch.start(home, work, env, readme.command("serve"), Map.of(), "serve");
            try {
                serve.awaitOutput("Ctrl-C stops", Duration.ofMinutes(5));
                assertTrue(serve.stdout().contains(datasource), serve.stdout());
                GatewayClient client = new GatewayClient(gateway, null);

                // 4. seed through the running serve
                Launch seed = Launch.run(home, work, env, readme.command("seed"), Map.of(), "seed", Duration.ofMinutes(3));
                assertEquals(0, seed.exit(), seed.describe());
                assertTrue(seed.stdout().contains(SEEDS.size() + " examples stored for " + datasource), seed.describe());
                assertEquals(SEEDS.size(), client.get("/v1/examples?datasource=" + datasource).get("count").asInt(), "serve lists the seeds");

                // submit --wait: one question fails, so exit 3
                Launch submit = Launch.run(home, work, env, readme.command("submit"), Map.of(), "submit", Duration.ofMinutes(5));
                assertEquals(3, submit.exit(), "exit 3: the batch finished with a failed question\n" + submit.describe());
                Matcher submitted = Pattern.compile("submitted (\\d+) questions as batch (\\S+)").matcher(submit.stderr());
                assertTrue(submitted.find(), submit.describe());
                String batchId = submitted.group(2);
                assertEquals(BATCH.size() + 1, Integer.parseInt(submitted.group(1)));
                assertEquals(batchId, Files.readString(work.resolve(questions.getFileName() + ".sqloop-batch")).strip());
                assertTrue(submit.stderr().contains("1 of " + (BATCH.size() + 1) + " questions failed"), submit.describe());
                Path resultsFile = work.resolve(readme.command("submit").option("--out"));
                List<JsonNode> results = Files.readAllLines(resultsFile).stream().filter(l -> !l.isBlank()).map(OwnDataJourneyIT::json).toList();
                Map<String, Long> byStatus = new TreeMap<>(results.stream().collect(Collectors.groupingBy(r -> r.path("status").asText(), Collectors.counting())));
                assertEquals(Map.of("failed", 1L, "succeeded", (long) BATCH.size()), byStatus, "results.jsonl: " + results);
                JsonNode failed = results.stream().filter(r -> r.path("status").asText().equals("failed")).findFirst().orElseThrow();
                assertEquals(UNANSWERABLE, failed.path("question").asText(), failed.toString());
                JsonNode waited = json(submit.stdout()); // submit --wait prints the batch's final status

                // the seeds reached the LLM: each pair is in the prompt of some question of the batch
                List<RecordedRequest> prompts = llm.requests();
                for (Map.Entry<String, String> s : SEEDS.entrySet()) {
                    assertTrue(prompts.stream().anyMatch(r -> squash(r.system() + "\n" + r.user()).contains(squash(s.getKey()))
                                    && squash(r.system() + "\n" + r.user()).contains(squash(s.getValue()))),
                            "seed \"" + s.getKey() + "\" in no prompt of " + prompts.size());
                }

                // status BATCH_ID --batch: the counts the results hold
                Launch status = Launch.run(home, work, env, readme.command("status"), Map.of("BATCH_ID", batchId), "status", Duration.ofMinutes(1));
                assertEquals(0, status.exit(), status.describe());
                JsonNode counts = json(status.stdout());
                assertEquals(batchId, counts.path("batchId").asText(), counts.toString());
                assertEquals(results.size(), counts.path("total").asInt(), counts.toString());
                assertEquals(results.size(), counts.path("finished").asInt(), counts.toString());
                assertTrue(counts.path("done").asBoolean(), counts.toString());
                assertEquals(BATCH.size(), counts.path("byStatus").path("succeeded").asInt(), counts.toString());
                assertEquals(1, counts.path("byStatus").path("failed").asInt(), counts.toString());
                // the two first answers with a mistake were repaired, the other two right at once
                assertEquals(2, counts.path("byReason").path("corrected_success").asInt(), counts.toString());
                assertEquals(2, counts.path("byReason").path("first_attempt_success").asInt(), counts.toString());
                assertEquals(waited.path("byStatus"), counts.path("byStatus"), "status says what submit --wait printed");
                assertEquals(waited.path("byReason"), counts.path("byReason"), "status says what submit --wait printed");

                // 5. eval against the same serve, TS on neighbour databases made by the README's TS login
                Launch eval = Launch.run(home, work, env, readme.command("eval"), Map.of(gatewayUrlIn(readme), gateway), "eval", Duration.ofMinutes(10));
                assertEquals(0, eval.exit(), eval.describe());
                checkEval(work.resolve(readme.command("eval").option("--out")), pg, database, readme.command("eval"), eval);
            } finally {
                serve.process().toHandle().destroy(); // SIGTERM, as Ctrl-C or a service manager stops it
                if (!serve.process().waitFor(2, TimeUnit.MINUTES)) serve.process().destroyForcibly();
            }
            assertTrue(serve.stdout().contains("sqloop serve: stopped"), "a clean stop\n" + serve.describe());
            // the README's role is enough: the executor caps spills (the grant on temp_file_limit), nothing warned
            String said = serve.stdout() + serve.stderr();
            assertTrue(!said.contains("temp_file_limit"), "the README's grants leave a setting unset\n" + serve.describe());
            assertTrue(said.lines().noneMatch(l -> l.matches(".*\\b(WARN|ERROR|WARNING)\\b.*")), "serve warned\n" + serve.describe());
        }
    }

    /**
     * The report's VA/EX/TS/EM, per question and per configuration, against a count made here from questions.jsonl alone:
     * each final SQL and gold run as the superuser with plain JDBC on the database and on each neighbour database
     * ({@code <db>_sqloop_ts<i>}, eval's documented names), results compared as sorted rows of values rounded to six
     * significant digits (no gold here depends on row order: its LIMIT 1 is over distinct prices).
     */
    private static void checkEval(Path out, PostgresServer pg, String database, Command command, Launch eval) throws Exception {
        int copies = Integer.parseInt(command.option("--ts"));
        List<String> neighbours = new ArrayList<>();
        try (Connection c = pg.superuser("postgres"); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT datname FROM pg_database WHERE datname LIKE '" + database + "\\_sqloop\\_ts%' ORDER BY datname")) {
            while (rs.next()) neighbours.add(rs.getString(1));
        }
        assertEquals(copies, neighbours.size(), "--ts " + copies + " neighbour databases: " + neighbours);
        try (Connection c = pg.superuser("postgres"); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT DISTINCT pg_get_userbyid(datdba) FROM pg_database WHERE datname LIKE '" + database + "\\_sqloop\\_ts%'")) {
            assertTrue(rs.next());
            assertEquals(command.env().get("SQLOOP_EVAL_TS_USER"), rs.getString(1), "made by the README's TS login");
            assertTrue(!rs.next(), "one owner");
        }
        List<Integer> configs = List.of(command.option("--max-attempts").split(",")).stream().map(s -> Integer.parseInt(s.strip())).toList();
        List<JsonNode> lines = Files.readAllLines(out.resolve("questions.jsonl")).stream().filter(l -> !l.isBlank()).map(OwnDataJourneyIT::json).toList();
        assertEquals(GOLD.size() * configs.size(), lines.size(), "one row per question and configuration");
        JsonNode report = JsonCodec.mapper().readTree(out.resolve("report.json").toFile());
        Map<Integer, int[]> mine = new TreeMap<>();
        for (JsonNode l : lines) {
            int[] n = mine.computeIfAbsent(l.path("maxAttempts").asInt(), k -> new int[5]);
            String sql = l.hasNonNull("sql") ? l.get("sql").asText() : null;
            String gold = l.path("gold").asText();
            assertEquals(GOLD.get(l.path("question").asText()), gold, "the gold as the user wrote it");
            List<String> answer = sql == null ? null : rows(pg, database, sql);
            boolean va = answer != null;
            boolean ex = va && answer.equals(rows(pg, database, gold));
            boolean ts = ex;
            for (String neighbour : neighbours) {
                List<String> g = rows(pg, neighbour, gold);
                if (ts && g != null) ts = g.equals(rows(pg, neighbour, sql));
            }
            boolean em = sql != null && normalized(sql).equals(normalized(gold));
            String where = "max attempts " + l.path("maxAttempts").asInt() + ", \"" + l.path("question").asText() + "\": " + l;
            assertEquals(va, l.path("va").asBoolean(), "VA of " + where);
            assertEquals(ex, l.path("ex").asBoolean(), "EX of " + where);
            assertEquals(ts, l.path("ts").asBoolean(), "TS of " + where);
            assertEquals(em, l.path("em").asBoolean(), "EM of " + where);
            n[0]++;
            n[1] += va ? 1 : 0;
            n[2] += ex ? 1 : 0;
            n[3] += ts ? 1 : 0;
            n[4] += em ? 1 : 0;
        }
        assertEquals(configs, new ArrayList<>(mine.keySet()));
        for (JsonNode c : report.path("configurations")) {
            int m = c.path("maxAttempts").asInt();
            int[] n = mine.get(m);
            System.out.printf("own-data journey, eval max attempts %d: report VA %d EX %d TS %d/%d EM %d of %d; recounted VA %d EX %d TS %d EM %d%n",
                    m, c.path("va").asInt(), c.path("ex").asInt(), c.path("ts").asInt(), c.path("tsScope").asInt(), c.path("em").asInt(),
                    c.path("questions").asInt(), n[1], n[2], n[3], n[4]);
            assertEquals(n[0], c.path("questions").asInt(), "questions, max attempts " + m);
            assertEquals(n[1], c.path("va").asInt(), "VA, max attempts " + m);
            assertEquals(n[2], c.path("ex").asInt(), "EX, max attempts " + m);
            assertEquals(n[3], c.path("ts").asInt(), "TS, max attempts " + m);
            assertEquals(n[0], c.path("tsScope").asInt(), "every question has neighbour databases, max attempts " + m);
            assertEquals(n[4], c.path("em").asInt(), "EM, max attempts " + m);
            // the figures tell what happened: the lucky answer is EX but not TS, the wrong one VA but not EX, the
            // unanswerable one not VA; the repairs only with a budget
            assertTrue(n[3] < n[2] && n[2] < n[1] && n[1] < n[0], "TS < EX < VA < questions: " + java.util.Arrays.toString(n));
        }
        assertTrue(eval.stdout().contains("TS (EX + every neighbour)"), "eval prints its table\n" + eval.describe());
        assertTrue(mine.get(configs.getLast())[2] > mine.get(configs.getFirst())[2], "repair raises EX: " + eval.stdout());
        assertEquals(Boolean.TRUE, report.path("sameMemory").isBoolean() ? report.get("sameMemory").asBoolean() : null,
                "every configuration started from the same examples: " + report.path("configurations"));
        for (String f : List.of("report.md", "report.html")) assertTrue(Files.size(out.resolve(f)) > 0, f);
    }

    private static String normalized(String sql) {
        return sql.strip().replaceAll(";+$", "").replaceAll("\\s+", " ").toLowerCase(Locale.ROOT);
    }

    /** The rows of {@code sql} on {@code database}, sorted, numbers rounded to six significant digits; null when it does not run. */
    private static List<String> rows(PostgresServer pg, String database, String sql) {
        try (Connection c = pg.superuser(database); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            List<String> out = new ArrayList<>();
            int columns = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                StringBuilder row = new StringBuilder();
                for (int i = 1; i <= columns; i++) {
                    Object v = rs.getObject(i);
                    row.append(v instanceof Number x ? new BigDecimal(x.toString()).round(new MathContext(6)).stripTrailingZeros().toPlainString()
                            : String.valueOf(v)).append('|');
                }
                out.add(row.toString());
            }
            Collections.sort(out);
            return out;
        } catch (SQLException e) {
            return null;
        }
    }

    /** The user's tables: 8 customers in 3 cities, 6 products in 3 categories (distinct prices), 40 orders. */
    private static List<String> userTables() {
        List<String> sql = new ArrayList<>(List.of(
                "CREATE TABLE customers (id int PRIMARY KEY, name text NOT NULL, city text NOT NULL)",
                "CREATE TABLE products (id int PRIMARY KEY, name text NOT NULL, category text NOT NULL, price numeric(10,2) NOT NULL)",
                "CREATE TABLE orders (id int PRIMARY KEY, customer_id int NOT NULL REFERENCES customers, "
                        + "product_id int NOT NULL REFERENCES products, quantity int NOT NULL, ordered_on date NOT NULL)",
                "INSERT INTO customers VALUES (1,'Ada','Lyon'),(2,'Bram','Lyon'),(3,'Chloe','Nantes'),(4,'Dev','Nantes'),"
                        + "(5,'Eun','Nantes'),(6,'Farid','Lille'),(7,'Gala','Lille'),(8,'Hugo','Lyon')",
                // product 4 holds the highest price: the LLM's hard-coded "id = 4" is right here, by luck
                "INSERT INTO products VALUES (1,'pen','office',2.50),(2,'desk','furniture',180.00),(3,'lamp','furniture',35.00),"
                        + "(4,'chair','furniture',240.00),(5,'paper','office',7.25),(6,'monitor','electronics',199.00)"));
        StringBuilder orders = new StringBuilder("INSERT INTO orders VALUES ");
        for (int i = 1; i <= 40; i++) {
            orders.append(i == 1 ? "" : ",").append(String.format(Locale.ROOT, "(%d,%d,%d,%d,DATE '2026-01-01' + %d)",
                    i, 1 + (i * 3) % 8, 1 + (i * 5) % 6, 1 + i % 4, i * 2));
        }
        sql.add(orders.toString());
        return sql;
    }

    private static void writeUserFiles(Path examples, Path questions, Path gold, String datasource) throws Exception {
        assertTrue(examples.toString().endsWith(".yaml") && questions.toString().endsWith(".jsonl") && gold.toString().endsWith(".csv"),
                "the README's file names: " + List.of(examples, questions, gold));
        StringBuilder yaml = new StringBuilder("cases:\n");
        int i = 0;
        for (Map.Entry<String, String> s : SEEDS.entrySet()) {
            yaml.append("  - id: seed").append(++i).append("\n    question: ").append(JsonCodec.encodeToString(s.getKey()))
                    .append("\n    expected_sql: ").append(JsonCodec.encodeToString(s.getValue())).append('\n');
        }
        Files.writeString(examples, yaml);
        StringBuilder jsonl = new StringBuilder();
        List<String> batch = new ArrayList<>(BATCH.keySet());
        batch.add(UNANSWERABLE);
        for (String q : batch) jsonl.append(JsonCodec.encodeToString(Map.of("question", q, "datasource", datasource))).append('\n');
        Files.writeString(questions, jsonl);
        StringBuilder csv = new StringBuilder("question,query,db_name,query_category\n");
        for (Map.Entry<String, String> g : GOLD.entrySet()) {
            csv.append(csvField(g.getKey())).append(',').append(csvField(g.getValue())).append(',').append(datasource).append(",journey\n");
        }
        Files.writeString(gold, csv);
    }

    private static String csvField(String s) {
        return "\"" + s.replace("\"", "\"\"") + "\"";
    }

    /** The simulated LLM: the batch's and the gold set's SQL (with the two different answers), mistakes where {@link #FAULTS} says. */
    private static OracleResponder oracle() {
        Map<String, String> knows = new LinkedHashMap<>(BATCH);
        GOLD.forEach((q, sql) -> {
            if (!q.equals(UNANSWERABLE)) knows.put(q, LLM_ANSWERS_INSTEAD.getOrDefault(q, sql));
        });
        return new OracleResponder(knows, Map.of(Fault.NONE, 1.0), "postgres", 45).withFaults(FAULTS);
    }

    /** A README placeholder's value on this machine: the user's host and port, secret file, LLM endpoint and key. */
    private static String userValue(String name, String value, PostgresServer pg, Path secret, SimulatedLlm llm) {
        if (name.matches("SQLOOP_DATASOURCE_\\w+_URL")) return value.replaceFirst("//[^/]+/", "//127.0.0.1:" + pg.port() + "/");
        if (name.matches("SQLOOP_DATASOURCE_\\w+_PASSWORD_FILE")) return secret.toString();
        if (name.equals("SQLOOP_LLM_BASE_URL")) return llm.openAiBaseUrl();
        if (name.equals("SQLOOP_LLM_API_KEY")) return "sk-own-data-journey";
        return value;
    }

    /** The gateway URL the README's eval names, to be replaced by this run's. */
    private static String gatewayUrlIn(Readme readme) {
        return readme.command("eval").option("--gateway");
    }

    /** Drops a role the private cluster was made with (testkit's reader), so the README's CREATE ROLE makes it anew. */
    private static void dropRole(PostgresServer pg, String role) throws SQLException {
        try (Connection c = pg.superuser("postgres"); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT 1 FROM pg_roles WHERE rolname = '" + role + "'")) {
            if (!rs.next()) return;
            st.execute("DROP OWNED BY " + role);
            st.execute("DROP ROLE " + role);
        }
    }

    private static JsonNode json(String text) {
        try {
            return JsonCodec.mapper().readTree(text);
        } catch (Exception e) {
            throw new AssertionError(text, e);
        }
    }

    private static String squash(String s) {
        return s.replaceAll("\\s+", " ").strip().toLowerCase(Locale.ROOT);
    }

    private static Map<String, String> ordered(String... pairs) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) m.put(pairs[i], pairs[i + 1]);
        return Collections.unmodifiableMap(m);
    }

    /** One {@code ./sqloop} line of the README: the settings in front of it and its arguments after {@code ./sqloop}. */
    record Command(Map<String, String> env, List<String> args) {
        String option(String name) {
            int i = args.indexOf(name);
            if (i < 0 || i + 1 >= args.size()) throw new AssertionError("the README's " + args.getFirst() + " has no " + name + ": " + args);
            return args.get(i + 1);
        }
    }

    /**
     * The README's own-data section as a shell would read it: the statements of its {@code sql} block, the
     * {@code export}s of its {@code bash} block and each {@code ./sqloop} line. Only what the section uses is read
     * (export, {@code NAME=value} prefixes, backslash continuations, comments); anything else, quoting included, fails
     * here, so a README that outgrows this parser says so instead of running something else.
     */
    record Readme(List<String> sql, Map<String, String> exports, List<Command> commands) {
        static Readme parse(String markdown) {
            int start = markdown.indexOf("\n" + SECTION);
            assertTrue(start >= 0, "README.md has no section " + SECTION);
            int end = markdown.indexOf("\n## ", start + 1);
            String section = markdown.substring(start, end < 0 ? markdown.length() : end);
            List<String> sql = new ArrayList<>();
            Map<String, String> exports = new LinkedHashMap<>();
            List<Command> commands = new ArrayList<>();
            Matcher block = Pattern.compile("(?s)```(sql|bash)\\n(.*?)```").matcher(section);
            while (block.find()) {
                if (block.group(1).equals("sql")) {
                    for (String statement : block.group(2).replaceAll("--[^\\n]*", "").split(";")) {
                        if (!statement.isBlank()) sql.add(statement.strip());
                    }
                    continue;
                }
                for (String line : block.group(2).replace("\\\n", " ").split("\n")) {
                    String text = line.replaceFirst("(^|\\s)#.*$", "").strip();
                    if (text.isEmpty()) continue;
                    assertTrue(!text.contains("'") && !text.contains("\"") && !text.contains("$"),
                            "the test's reading of the README takes no quoting or expansion: " + text);
                    List<String> words = List.of(text.split("\\s+"));
                    if (words.getFirst().equals("export")) {
                        for (String w : words.subList(1, words.size())) exports.put(w.substring(0, w.indexOf('=')), w.substring(w.indexOf('=') + 1));
                        continue;
                    }
                    Map<String, String> env = new LinkedHashMap<>();
                    int i = 0;
                    while (i < words.size() && words.get(i).matches("[A-Z_][A-Z0-9_]*=.*")) {
                        env.put(words.get(i).substring(0, words.get(i).indexOf('=')), words.get(i).substring(words.get(i).indexOf('=') + 1));
                        i++;
                    }
                    assertTrue(i < words.size() && words.get(i).equals("./sqloop"), "not a ./sqloop line: " + text);
                    commands.add(new Command(env, List.copyOf(words.subList(i + 1, words.size()))));
                }
            }
            assertTrue(!sql.isEmpty() && !exports.isEmpty() && !commands.isEmpty(), "the section's sql and bash blocks: " + section);
            return new Readme(sql, exports, commands);
        }

        Command command(String name) {
            return commands.stream().filter(c -> c.args().getFirst().equals(name)).findFirst()
                    .orElseThrow(() -> new AssertionError("no ./sqloop " + name + " in the README's own-data steps"));
        }

        /** The datasource the exports configure (SQLOOP_DATASOURCE_NAME_DIALECT), lower case as sqloop names it. */
        String datasource() {
            return exports.keySet().stream().map(k -> k.replaceFirst("^SQLOOP_DATASOURCE_(\\w+)_DIALECT$", "$1")).filter(k -> !k.startsWith("SQLOOP_"))
                    .findFirst().orElseThrow(() -> new AssertionError("no SQLOOP_DATASOURCE_<NAME>_DIALECT in " + exports)).toLowerCase(Locale.ROOT);
        }

        /** The database the datasource's URL names. */
        String database() {
            String url = exports.get("SQLOOP_DATASOURCE_" + datasource().toUpperCase(Locale.ROOT) + "_URL");
            Matcher m = Pattern.compile("jdbc:postgresql://[^/]+/(\\w+)").matcher(String.valueOf(url));
            assertTrue(m.find(), "a PostgreSQL URL: " + url);
            return m.group(1);
        }

        List<String> rolesCreated() {
            return sql.stream().map(s -> s.replaceFirst("(?is)^CREATE ROLE (\\w+).*", "$1")).filter(s -> s.matches("\\w+")).toList();
        }

        /** The password step 1 gives the datasource's login, which the user keeps in the secret file. */
        String readerPassword() {
            String user = exports.get("SQLOOP_DATASOURCE_" + datasource().toUpperCase(Locale.ROOT) + "_USER");
            for (String s : sql) {
                Matcher m = Pattern.compile("(?is)^CREATE ROLE " + user + " .*PASSWORD '([^']*)'").matcher(s);
                if (m.find()) return m.group(1);
            }
            throw new AssertionError("step 1 makes no login " + user);
        }
    }

    /** {@code ./sqloop ARGS} through the launcher in a process of its own, in the user's folder, stdout and stderr kept apart. */
    record Launch(Process process, Path out, Path err, String name) {
        static Launch start(Path home, Path work, Map<String, String> env, Command command, Map<String, String> replace, String name)
                throws Exception {
            List<String> argv = new ArrayList<>(List.of("bash", home.resolve("sqloop").toString()));
            for (String a : command.args()) argv.add(replace.getOrDefault(a, a));
            ProcessBuilder pb = new ProcessBuilder(argv).directory(work.toFile());
            pb.environment().keySet().removeIf(k -> k.startsWith("SQLOOP_"));
            pb.environment().putAll(env);
            pb.environment().putAll(command.env());
            // the build this test runs in is the one to run (no rebuild from inside a test), on this JVM's JDK
            pb.environment().put("SQLOOP_BUILD", "never");
            pb.environment().put("SQLOOP_JAVA_HOME", System.getProperty("java.home"));
            pb.environment().put("SQLOOP_HEAP", "1g");
            Path out = work.resolve(name + ".out");
            Path err = work.resolve(name + ".err");
            pb.redirectOutput(out.toFile()).redirectError(err.toFile());
            return new Launch(pb.start(), out, err, name);
        }

        static Launch run(Path home, Path work, Map<String, String> env, Command command, Map<String, String> replace, String name,
                          Duration timeout) throws Exception {
            Launch l = start(home, work, env, command, replace, name);
            if (!l.process().waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                l.process().destroyForcibly();
                throw new AssertionError("./sqloop " + name + " still running after " + timeout + "\n" + l.describe());
            }
            return l;
        }

        int exit() {
            return process.exitValue();
        }

        String stdout() {
            return read(out);
        }

        String stderr() {
            return read(err);
        }

        void awaitOutput(String text, Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (System.nanoTime() < deadline) {
                if (stdout().contains(text)) return;
                if (!process.isAlive()) throw new AssertionError("./sqloop " + name + " exited with " + process.exitValue() + "\n" + describe());
                Thread.sleep(200);
            }
            throw new AssertionError("./sqloop " + name + " printed no \"" + text + "\" within " + timeout + "\n" + describe());
        }

        String describe() {
            return "./sqloop " + name + (process.isAlive() ? "" : " (exit " + process.exitValue() + ")") + "\n--- stdout\n" + stdout()
                    + "\n--- stderr\n" + stderr();
        }

        private static String read(Path p) {
            try {
                return Files.exists(p) ? Files.readString(p, StandardCharsets.UTF_8) : "";
            } catch (java.io.IOException e) {
                return e.toString();
            }
        }
    }
}
