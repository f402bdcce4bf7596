package dev.sqloop.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.config.EnvConfig;
import dev.sqloop.common.config.KafkaSettings;
import dev.sqloop.common.datasource.Datasources;
import dev.sqloop.common.message.ExampleIds;
import dev.sqloop.fewshot.ChromaPairs;
import dev.sqloop.fewshot.ExampleSeeder;
import dev.sqloop.fewshot.ExampleTopic;
import dev.sqloop.fewshot.FewshotConfig;
import dev.sqloop.store.ChromaClient;
import dev.sqloop.store.Embedder;
import dev.sqloop.store.ExampleStore;
import dev.sqloop.store.ExampleStoreConfig;
import dev.sqloop.store.ExampleStores;
import java.io.PrintStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code ./sqloop seed FILE}, or {@code --from-chroma URL --chroma-collection NAME}: a file's question→SQL pairs, or an
 * existing Chroma collection's (migrating from an agent that kept its examples there), become examples every tenant of
 * the datasource sees. By
 * default through a running gateway, so a running {@code serve} (or a deployment) gets them: the fewshot service is the
 * only writer of its store, and a Lucene index belongs to the one process that holds its lock. {@code --store} writes a
 * store no service is running on, as before.
 */
@Command(name = "seed",
        description = {"Add a file's question→SQL pairs as examples every tenant of the datasource sees.",
            "",
            "By default through a running gateway (./sqloop serve, ./sqloop demo --serve, or a deployment's): each pair is",
            "posted as a shared example (POST /v1/examples; with API keys on, a curator's key), the fewshot service stores",
            "it, and the command waits until every one is listed. Idempotent: a pair already stored stays as it is.",
            "Reads YAML cases ({id, question, expected_sql}), defog CSV (question, query, db_name) or JSONL",
            "(question, sql|query|expected_sql, datasource|db_name); of several gold queries, the first.",
            "",
            "--from-chroma URL --chroma-collection NAME reads the pairs from an existing Chroma collection instead of a file",
            "(Chroma's HTTP API v2): the question is each record's document (or --chroma-question-field), the SQL its metadata",
            "field sql (--chroma-sql-field), the datasource --datasource (or --chroma-datasource-field). Each SQL must be one",
            "read-only query as the validator's parser reads it in the datasource's dialect: any other is refused with its",
            "reason and never stored. Idempotent: run it again and what is stored stays as it is.",
            "",
            "--store writes the example store SQLOOP_FEWSHOT_* configures directly instead (a deployment's store before its",
            "fewshot service starts; the service publishes them when it does). A store a running service holds is refused",
            "with the command to run instead."},
        exitCodeListHeading = "%nexit codes:%n",
        exitCodeList = {"0:every pair with SQL is stored", "1:some were refused (each is named), or the gateway or store is not available",
            "2:usage (an unknown datasource, a file that is not there)"})
public final class SeedCommand implements Callable<Integer> {
    /** How long the stored pairs may take to be listed by the gateway (the fewshot service applies them in order). */
    static final Duration LISTED_WITHIN = Duration.ofMinutes(2);

    @Parameters(index = "0", arity = "0..1", paramLabel = "FILE", description = "the pairs: .yaml/.yml, .csv or .jsonl (or --from-chroma)")
    Path file;

    @Option(names = "--from-chroma", paramLabel = "URL", description = "read the pairs from a Chroma server (http://host:8000) instead of a file")
    String chromaUrl;

    @Option(names = "--chroma-collection", paramLabel = "NAME", description = "the Chroma collection holding the pairs")
    String chromaCollection;

    @Option(names = "--chroma-tenant", paramLabel = "T", description = "its Chroma tenant (default: ${DEFAULT-VALUE})")
    String chromaTenant = "default_tenant";

    @Option(names = "--chroma-database", paramLabel = "D", description = "its Chroma database (default: ${DEFAULT-VALUE})")
    String chromaDatabase = "default_database";

    @Option(names = "--chroma-question-field", paramLabel = "F", description = "metadata field of the question (default: the record's document)")
    String chromaQuestionField;

    @Option(names = "--chroma-sql-field", paramLabel = "F", description = "metadata field of the SQL (default: ${DEFAULT-VALUE})")
    String chromaSqlField = "sql";

    @Option(names = "--chroma-datasource-field", paramLabel = "F",
            description = "metadata field naming each pair's datasource (default: --datasource for every pair)")
    String chromaDatasourceField;

    @Option(names = "--datasource", paramLabel = "NAME",
            description = "for rows that name none (through a gateway with one datasource, that one; with --store, \"default\")")
    String datasource;

    @Mixin
    GatewayOptions gateway;

    @Option(names = "--store", description = "write the store SQLOOP_FEWSHOT_* configures, with no service running on it")
    boolean store;

    private final Map<String, String> env;
    private final PrintStream out;
    private final PrintStream err;

    SeedCommand() {
        this(System.getenv(), System.out, System.err);
    }

    /** The command on this environment (the store's settings) and these streams (tests pass a map and capture the output). */
    public SeedCommand(Map<String, String> env, PrintStream out, PrintStream err) {
        this.env = env;
        this.out = out;
        this.err = err;
    }

    /** Runs {@code ./sqloop seed ARGS} on {@code env} and these streams, as {@link Main#run(List)} does. */
    public static int run(List<String> argv, Map<String, String> env, PrintStream out, PrintStream err) throws Exception {
        CommandLine c = Main.configure(new CommandLine(new SeedCommand(env, out, err)).setCommandName("./sqloop seed"));
        c.setOut(new java.io.PrintWriter(out, true));
        return Main.run(c, argv);
    }

    @Override
    public Integer call() throws Exception {
        if (chromaUrl == null) {
            if (chromaCollection != null || chromaQuestionField != null || chromaDatasourceField != null) {
                throw new Args.UsageException("--chroma-* options need --from-chroma URL");
            }
            if (file == null) throw new Args.UsageException("seed what? a FILE, or --from-chroma URL --chroma-collection NAME");
            if (!Files.isRegularFile(file)) throw new NoSuchFileException(file.toString());
        } else {
            if (file != null) throw new Args.UsageException("seed reads a FILE or --from-chroma, not both");
            if (chromaCollection == null) throw new Args.UsageException("--from-chroma needs --chroma-collection NAME");
        }
        if (store) {
            if (gateway.url != null || gateway.apiKey != null) throw new Args.UsageException("--store writes a store directly: it takes no --gateway or --api-key");
            return seedStore();
        }
        return seedThroughGateway(gateway.client());
    }

    /** Where the pairs come from, for messages. */
    private String source() {
        return file != null ? file.toString() : "Chroma collection " + chromaCollection + " at " + chromaUrl;
    }

    /** The Chroma collection's pairs, each with its record id; rows without their own datasource get {@code fallback}. */
    private List<ChromaPairs.Pair> chromaPairs(String fallback) {
        try (ChromaClient client = new ChromaClient(chromaUrl, chromaTenant, chromaDatabase)) {
            return ChromaPairs.read(client, chromaCollection, new ChromaPairs.Fields(chromaQuestionField, chromaSqlField, chromaDatasourceField),
                    fallback);
        } catch (IllegalArgumentException e) {
            throw new CommandFailure(e.getMessage());
        } catch (ChromaClient.ChromaUnavailableException | ChromaClient.ChromaRefusedException e) {
            throw new CommandFailure(e.getMessage());
        }
    }

    /** What a seeding through the gateway did with each row. */
    record Tally(int added, int unchanged, int withoutSql, List<String> refused) {}

    private int seedThroughGateway(GatewayClient client) throws Exception {
        Set<String> known = new TreeSet<>();
        for (JsonNode d : client.get("/v1/datasources").path("datasources")) known.add(d.path("name").asText());
        String fallback = datasource != null ? datasource : known.size() == 1 ? known.iterator().next() : null;
        List<ExampleSeeder.Row> rows = file != null ? ExampleSeeder.read(file, fallback)
                : chromaPairs(fallback).stream().map(ChromaPairs.Pair::row).toList();
        Set<String> unknown = new LinkedHashSet<>();
        for (ExampleSeeder.Row r : rows) {
            if (r.datasource() == null) {
                throw new Args.UsageException(source() + " has rows that name no datasource: give --datasource NAME (the gateway's: "
                        + String.join(", ", known) + ")");
            }
            if (!known.contains(r.datasource())) unknown.add(r.datasource());
        }
        if (!unknown.isEmpty()) {
            // nothing is posted: a misspelt name would otherwise be refused once per row
            throw new Args.UsageException("the gateway at " + client.baseUrl() + " has no datasource " + String.join(", ", unknown)
                    + " (its datasources: " + String.join(", ", known) + "); --datasource names the one for rows that name none");
        }
        Tally tally = post(client, rows);
        Set<String> datasources = new TreeSet<>();
        rows.forEach(r -> datasources.add(r.datasource()));
        int stored = tally.added() + tally.unchanged();
        out.printf("%d examples stored for %s through %s: %d new or changed, %d already there; %d rows without SQL skipped%s%n",
                stored, String.join(", ", datasources), client.baseUrl(), tally.added(), tally.unchanged(), tally.withoutSql(),
                tally.refused().isEmpty() ? "" : "; " + tally.refused().size() + " refused");
        if (tally.refused().isEmpty()) return Main.OK;
        tally.refused().forEach(r -> err.println("  refused: " + r));
        throw new CommandFailure(tally.refused().size() + " of " + rows.size() + " rows were refused by the gateway (above); the others are stored");
    }

    /** Posts each pair as a shared example, then waits until the gateway lists every one it accepted. */
    private static Tally post(GatewayClient client, List<ExampleSeeder.Row> rows) throws Exception {
        int unchanged = 0;
        int withoutSql = 0;
        List<String> refused = new ArrayList<>();
        Map<String, String> accepted = new LinkedHashMap<>(); // id -> question
        for (int i = 0; i < rows.size(); i++) {
            ExampleSeeder.Row r = rows.get(i);
            if (blank(r.question()) || blank(r.sql())) {
                withoutSql++;
                continue;
            }
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("question", r.question().strip());
            body.put("datasource", r.datasource());
            body.put("sql", r.sql().strip());
            body.put("shared", true);
            GatewayClient.Answer a = client.post("/v1/examples", JsonCodec.encodeToString(body));
            if (a.status() == 202) {
                accepted.put(a.body().get("id").asText(), r.question());
            } else if (a.status() == 200) {
                unchanged++;
            } else if (a.status() == 403 || a.status() == 401) {
                // a key that may not share: every row would be refused alike
                throw new CommandFailure("the gateway refused to store shared examples (" + a.status() + ": " + a.reason()
                        + "): seeding needs a curator's key (--api-key or SQLOOP_API_KEY; the gateway's SQLOOP_GATEWAY_CURATORS names"
                        + " the curators)" + (accepted.isEmpty() ? "" : "; " + accepted.size() + " rows before it were accepted"));
            } else if (a.status() >= 500) {
                throw new CommandFailure("the gateway failed (" + a.status() + ": " + a.reason() + ") at row " + (i + 1)
                        + "; run the same command again: what is stored stays, the rest is added");
            } else {
                refused.add("row " + (i + 1) + " (" + shorten(r.question()) + "): " + a.reason());
            }
        }
        awaitListed(client, accepted);
        return new Tally(accepted.size(), unchanged, withoutSql, refused);
    }

    /** Until the gateway lists every accepted example: the fewshot service stores it, then publishes it to the gateway. */
    private static void awaitListed(GatewayClient client, Map<String, String> accepted) throws Exception {
        long deadline = System.nanoTime() + LISTED_WITHIN.toNanos();
        List<String> pending = new ArrayList<>(accepted.keySet());
        while (!pending.isEmpty()) {
            GatewayClient.Answer a = client.fetch("/v1/examples/" + URLEncoder.encode(pending.getFirst(), StandardCharsets.UTF_8));
            if (a.status() == 200) {
                pending.removeFirst();
                continue;
            }
            if (System.nanoTime() > deadline) {
                throw new CommandFailure(pending.size() + " of " + accepted.size() + " accepted examples are not listed after "
                        + LISTED_WITHIN.toSeconds() + " s (the first: \"" + shorten(accepted.get(pending.getFirst()))
                        + "\"): is the fewshot service running? They are stored once it applies them");
            }
            Thread.sleep(200);
        }
    }

    /** {@code --store}: the configured store, opened here; refused, saying what to run, when a running service holds it. */
    private int seedStore() throws Exception {
        EnvConfig env = new EnvConfig(this.env);
        FewshotConfig config = FewshotConfig.fromEnv(env);
        ExampleStoreConfig storeConfig = ExampleStoreConfig.fromEnv(env);
        String where = storeConfig.location();
        String name = datasource != null ? datasource : "default";
        String dialect = Datasources.dialectsFromEnv(env).containsKey(name) ? Datasources.dialectsFromEnv(env).get(name).wireName()
                : config.defaultDialect();
        Main.quietLucene();
        ExampleStore opened;
        try {
            // opened before the embedding model loads (seconds): a store in use is refused at once
            opened = ExampleStores.open(storeConfig);
        } catch (Exception e) {
            if (!heldByAnotherProcess(e)) throw e;
            throw new CommandFailure(where + " is in use by a running service (./sqloop serve, or the fewshot service, holds its"
                    + " lock). Seed through its gateway instead: ./sqloop seed " + (file != null ? file : "--from-chroma " + chromaUrl
                    + " --chroma-collection " + chromaCollection) + " --datasource " + name
                    + " [--gateway URL] (default SQLOOP_GATEWAY_URL, else " + GatewayOptions.DEFAULT_URL + ")");
        }
        List<String> refused = List.of();
        try (ExampleStore s = opened) {
            Embedder embedder = storeConfig.newEmbedder();
            ExampleSeeder seeder = new ExampleSeeder(embedder, s, Clock.systemUTC());
            if (file != null) {
                ExampleSeeder.Report r = seeder.seed(file, name, dialect);
                out.printf("read %d, seeded %d, skipped %d; %d examples stored in %s%n", r.read(), r.seeded(), r.skipped(), s.count(), where);
            } else {
                List<ChromaPairs.Pair> pairs = chromaPairs(name);
                Map<String, String> dialects = new LinkedHashMap<>();
                Datasources.dialectsFromEnv(env).forEach((ds, d) -> dialects.put(ds, d.wireName()));
                ExampleSeeder.Import r = seeder.importPairs(pairs.stream().map(ChromaPairs.Pair::row).toList(),
                        pairs.stream().map(p -> "record " + p.id()).toList(), ds -> dialects.getOrDefault(ds, config.defaultDialect()));
                out.printf("read %d from %s: %d added or changed, %d already there, %d skipped (no question, SQL or datasource;"
                        + " marked wrong; curated; repeated), %d refused; %d examples stored in %s%n", r.read(), source(), r.added(),
                        r.unchanged(), r.skipped(), r.refused().size(), s.count(), where);
                refused = r.refused();
            }
            if (env.raw().containsKey(KafkaSettings.BOOTSTRAP)) {
                ExampleTopic.SyncReport p = ExampleTopic.sync(s, KafkaSettings.fromEnv(env), Duration.ofMinutes(2));
                out.printf("published %d changed examples on topic examples%n", p.published());
            } else {
                out.printf("%s not set: the fewshot service publishes them on topic examples when it starts on this store%n",
                        KafkaSettings.BOOTSTRAP);
            }
        }
        if (refused.isEmpty()) return Main.OK;
        refused.forEach(r -> err.println("  refused: " + r));
        throw new CommandFailure(refused.size() + " pairs were refused (above), none of them stored; the others are");
    }

    /** Lucene's "Lock held by another program": the index is open in another process. */
    static boolean heldByAnotherProcess(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t.getClass().getName().equals("org.apache.lucene.store.LockObtainFailedException")) return true;
        }
        return false;
    }

    private static boolean blank(String s) {
        return s == null || s.isBlank();
    }

    private static String shorten(String s) {
        String one = s == null ? "" : s.strip().replaceAll("\\s+", " ");
        return one.length() <= 60 ? one : one.substring(0, 59) + "…";
    }

    /** The id the gateway gives a shared example of {@code question} (for tests that look one up). */
    static String sharedId(String datasource, String question) {
        return ExampleIds.of(datasource, question, null).toString();
    }
}
