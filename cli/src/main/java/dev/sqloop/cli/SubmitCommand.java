package dev.sqloop.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Iterator;
import java.util.Map;

/**
 * {@code ./sqloop submit FILE.jsonl --gateway URL [--api-key K] [--wait] [--out results.jsonl]}: submits a JSONL
 * batch, shows progress, writes every final result. Resumable: the batch id is kept beside the input
 * ({@code FILE.jsonl.sqloop-batch}); running the command again resumes waiting instead of submitting again.
 */
public final class SubmitCommand {
    static final String USAGE = """
            usage: ./sqloop submit FILE.jsonl --gateway URL [--api-key K] [--wait] [--out results.jsonl] [--resubmit]

            Submits a JSONL batch (one {"question", "datasource", "clientId"?, "maxAttempts"?, "metadata"?} per line)
            and prints its batch id; with --wait or --out follows it with a progress bar and writes every final result.
            The batch id is kept in FILE.jsonl.sqloop-batch: running the command again resumes instead of submitting.
            options:
              --gateway URL      the gateway (default SQLOOP_GATEWAY_URL, else http://127.0.0.1:8080)
              --api-key K        the gateway's API key (default SQLOOP_API_KEY)
              --wait             follow the batch until every question is final
              --out FILE         write the final results there (implies --wait)
              --resubmit         submit again even if FILE.jsonl.sqloop-batch names a batch
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

    static int run(Args args) throws IOException, InterruptedException {
        if (args.positional().isEmpty()) throw new Args.UsageException("submit needs a JSONL file: ./sqloop submit FILE.jsonl --gateway URL");
        Path file = Path.of(args.positional().get(0));
        if (!Files.isRegularFile(file)) throw new Args.UsageException("no such file: " + file);
        GatewayClient client = GatewayClient.fromArgs(args);
        Path stateFile = file.resolveSibling(file.getFileName() + ".sqloop-batch");
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
        JsonNode status = awaitBatch(client, batchId);
        String out = args.string("out", null);
        if (out != null) {
            long written = download(client, batchId, Path.of(out));
            System.err.printf("sqloop: wrote %d results to %s%n", written, out);
        }
        System.out.println(status.toPrettyString());
        return 0;
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
