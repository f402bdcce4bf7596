package dev.sqloop.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sqloop.common.JsonCodec;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * {@code ./sqloop submit FILE.jsonl --gateway URL [--api-key K] [--wait] [--out results.jsonl]}: submits a JSONL
 * batch, shows progress, writes every final result. Resumable: the batch id is kept beside the input
 * ({@code FILE.jsonl.sqloop-batch}); running the command again resumes waiting instead of submitting again.
 */
public final class SubmitCommand {
    static final String USAGE = """
            usage: ./sqloop submit FILE.jsonl --gateway URL [--api-key K] [--wait] [--out results.jsonl] [--resubmit]
                   ./sqloop submit FILE.jsonl --retry-failed [--reason R[,R]...] [--wait] [--out results.jsonl]

            Submits a JSONL batch (one {"question", "datasource", "clientId"?, "maxAttempts"?, "metadata"?} per line)
            and prints its batch id; with --wait or --out follows it with a progress bar and writes every final result.
            The batch id is kept in FILE.jsonl.sqloop-batch: running the command again resumes instead of submitting.
            options:
              --gateway URL      the gateway (default SQLOOP_GATEWAY_URL, else http://127.0.0.1:8080)
              --api-key K        the gateway's API key (default SQLOOP_API_KEY)
              --wait             follow the batch until every question is final
              --out FILE         write the final results there (implies --wait)
              --resubmit         submit again even if FILE.jsonl.sqloop-batch names a batch
              --retry-failed     run the batch's failed questions again (the batch named by FILE.jsonl.sqloop-batch):
                                 those failed for --reason, by default the outages (llm_unavailable,
                                 warehouse_unavailable, infrastructure_error, deadline_exceeded); see ./sqloop retry --help
            """;

    static final String RETRY_USAGE = """
            usage: ./sqloop retry ID [--batch] [--reason R[,R]...] [--wait] [--out results.jsonl] [--gateway URL] [--api-key K]

            Runs failed questions again once what failed them is back (the LLM, the warehouse): a question (any failure
            but "cancelled"), or with --batch the batch's questions failed for the given reasons (default: the outages,
            llm_unavailable, warehouse_unavailable, infrastructure_error and deadline_exceeded; any failure reason but
            "cancelled" may be named). A retry is not a repair: each question starts again from attempt 1 with its whole
            budget, at a new round; the batch's counts drop it until it ends again, and its new result replaces the old.
            With --wait (or --out, which writes the batch's results) follows the retried questions until they end.
            """;

    static final String STATUS_USAGE = """
            usage: ./sqloop status ID [--batch] [--gateway URL] [--api-key K]

            Prints a question's status (or, with --batch, a batch's) as the gateway serves it.
            """;

    static final String CANCEL_USAGE = """
            usage: ./sqloop cancel ID [--batch] [--gateway URL] [--api-key K]

            Cancels a question (or, with --batch, a batch): what is not final yet ends "cancelled" at the next stage
            it reaches, with no further LLM call. Idempotent; a finished question or batch is refused with the gateway's
            reason (409).
            """;

    private SubmitCommand() {}

    /** {@code ./sqloop cancel ID [--batch]}. */
    static int cancel(Args args) throws IOException, InterruptedException {
        if (args.positional().isEmpty()) throw new Args.UsageException("cancel needs an id: ./sqloop cancel ID [--batch]");
        GatewayClient client = GatewayClient.fromArgs(args);
        String id = args.positional().get(0);
        JsonNode r = client.delete((args.flag("batch") ? "/v1/batches/" : "/v1/questions/") + id, 202);
        System.out.println(r.toPrettyString());
        return 0;
    }

    /** {@code ./sqloop retry ID [--batch] [--reason R]...}. */
    static int retry(Args args) throws IOException, InterruptedException {
        if (args.positional().isEmpty()) throw new Args.UsageException("retry needs an id: ./sqloop retry ID [--batch]");
        GatewayClient client = GatewayClient.fromArgs(args);
        String id = args.positional().get(0);
        return args.flag("batch") ? retryBatch(client, id, args) : retryQuestion(client, id, args);
    }

    private static int retryQuestion(GatewayClient client, String id, Args args) throws IOException, InterruptedException {
        if (!args.strings("reason").isEmpty()) throw new Args.UsageException("--reason picks a batch's questions: add --batch");
        JsonNode accepted = client.postJson("/v1/questions/" + id + "/retry", "", 202);
        int round = accepted.get("round").asInt();
        System.err.printf("sqloop: retrying question %s (failed for %s) at round %d%n", id, accepted.get("previousReason").asText(), round);
        if (!args.flag("wait")) {
            System.out.println(accepted.toPrettyString());
            return 0;
        }
        while (true) {
            JsonNode s = client.getPatiently("/v1/questions/" + id, Duration.ofMinutes(2));
            String status = s.get("status").asText();
            if (s.path("round").asInt() >= round && (status.equals("succeeded") || status.equals("failed"))) {
                System.out.println(s.toPrettyString());
                return 0;
            }
            Thread.sleep(1000);
        }
    }

    private static int retryBatch(GatewayClient client, String batchId, Args args) throws IOException, InterruptedException {
        List<String> reasons = args.strings("reason").stream()
                .flatMap(r -> java.util.Arrays.stream(r.split(","))).map(String::trim).filter(r -> !r.isEmpty()).toList();
        String body = reasons.isEmpty() ? "" : JsonCodec.mapper().writeValueAsString(Map.of("reasons", reasons));
        JsonNode accepted = client.postJson("/v1/batches/" + batchId + "/retry", body, 200, 202);
        int retried = accepted.get("retried").asInt();
        int round = accepted.get("round").asInt();
        System.err.printf("sqloop: retrying %d questions of batch %s at round %d (%s)%n", retried, batchId, round,
                retried == 0 ? "none failed for " + accepted.get("reasons") : accepted.get("byReason"));
        boolean wait = args.flag("wait") || args.string("out", null) != null;
        if (!wait) {
            System.out.println(accepted.toPrettyString());
            return 0;
        }
        JsonNode status = retried == 0 ? client.getPatiently("/v1/batches/" + batchId, Duration.ofMinutes(2))
                : awaitRound(client, batchId, round, retried);
        return finish(client, batchId, status, args);
    }

    /** Writes the batch's results where {@code --out} says (if it does) and prints the batch's status. */
    private static int finish(GatewayClient client, String batchId, JsonNode status, Args args) throws IOException, InterruptedException {
        String out = args.string("out", null);
        if (out != null) {
            long written = download(client, batchId, Path.of(out));
            System.err.printf("sqloop: wrote %d results to %s%n", written, out);
        }
        System.out.println(status.toPrettyString());
        return 0;
    }

    /** Follows a batch until {@code count} questions have a result of {@code round} or later ({@code byRound}). */
    static JsonNode awaitRound(GatewayClient client, String batchId, int round, int count) throws IOException, InterruptedException {
        ProgressBar bar = new ProgressBar(System.err);
        while (true) {
            JsonNode s = client.getPatiently("/v1/batches/" + batchId, Duration.ofMinutes(2));
            long ended = 0;
            for (Iterator<Map.Entry<String, JsonNode>> it = s.path("byRound").fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                if (Integer.parseInt(e.getKey()) >= round) ended += e.getValue().asLong();
            }
            bar.update(Math.min(ended, count), count, counts(s.get("byStatus")));
            if (ended >= count) {
                bar.finish();
                return s;
            }
            Thread.sleep(1000);
        }
    }

    static int run(Args args) throws IOException, InterruptedException {
        if (args.positional().isEmpty()) throw new Args.UsageException("submit needs a JSONL file: ./sqloop submit FILE.jsonl --gateway URL");
        Path file = Path.of(args.positional().get(0));
        if (!Files.isRegularFile(file)) throw new Args.UsageException("no such file: " + file);
        GatewayClient client = GatewayClient.fromArgs(args);
        Path stateFile = file.resolveSibling(file.getFileName() + ".sqloop-batch");
        if (args.flag("retry-failed")) {
            if (!Files.exists(stateFile)) throw new Args.UsageException("no batch to retry: " + stateFile + " does not exist (submit first)");
            if (args.flag("resubmit")) throw new Args.UsageException("--retry-failed and --resubmit exclude each other");
            return retryBatch(client, Files.readString(stateFile).trim(), args);
        }
        if (!args.strings("reason").isEmpty()) throw new Args.UsageException("--reason goes with --retry-failed");
        String batchId;
        if (Files.exists(stateFile) && !args.flag("resubmit")) {
            batchId = Files.readString(stateFile).trim();
            System.err.println("sqloop: resuming batch " + batchId + " (from " + stateFile + "; --resubmit to submit again)");
        } else {
            JsonNode accepted = client.submitBatchFile(file);
            batchId = accepted.get("batchId").asText();
            Files.writeString(stateFile, batchId + "\n");
            System.err.printf("sqloop: submitted %d questions as batch %s%n", accepted.get("count").asInt(), batchId);
        }
        boolean wait = args.flag("wait") || args.string("out", null) != null;
        if (!wait) {
            System.out.println(batchId);
            return 0;
        }
        return finish(client, batchId, awaitBatch(client, batchId), args);
    }

    public static JsonNode awaitBatch(GatewayClient client, String batchId) throws IOException, InterruptedException {
        ProgressBar bar = new ProgressBar(System.err);
        while (true) {
            JsonNode s = client.getPatiently("/v1/batches/" + batchId, Duration.ofMinutes(2));
            bar.update(s.get("finished").asLong(), s.get("total").asLong(), counts(s.get("byStatus")));
            if (s.get("done").asBoolean()) {
                bar.finish();
                return s;
            }
            Thread.sleep(1000);
        }
    }

    private static String counts(JsonNode byStatus) {
        StringBuilder b = new StringBuilder();
        for (Iterator<Map.Entry<String, JsonNode>> it = byStatus.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (!b.isEmpty()) b.append(' ');
            b.append(e.getKey()).append(' ').append(e.getValue().asLong());
        }
        return b.isEmpty() ? "waiting" : b.toString();
    }

    /** Writes the results to a temp file and moves it into place: an interrupted download leaves no half file. */
    public static long download(GatewayClient client, String batchId, Path target) throws IOException, InterruptedException {
        Path tmp = Files.createTempFile(target.toAbsolutePath().getParent(), ".sqloop-results", ".tmp");
        long lines = 0;
        try (InputStream in = client.stream("/v1/batches/" + batchId + "/results"); OutputStream out = Files.newOutputStream(tmp)) {
            byte[] buf = new byte[64 * 1024]; // streamed: a batch of 100k results never sits in memory whole
            for (int n; (n = in.read(buf)) > 0; ) {
                for (int i = 0; i < n; i++) if (buf[i] == '\n') lines++;
                out.write(buf, 0, n);
            }
        }
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return lines;
    }

    /** {@code ./sqloop status ID}: a question's or a batch's status as JSON. */
    static int status(Args args) throws IOException, InterruptedException {
        if (args.positional().isEmpty()) throw new Args.UsageException("status needs an id: ./sqloop status ID [--batch]");
        GatewayClient client = GatewayClient.fromArgs(args);
        String id = args.positional().get(0);
        String path = args.flag("batch") ? "/v1/batches/" + id : "/v1/questions/" + id;
        System.out.println(client.get(path).toPrettyString());
        return 0;
    }
}
