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
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code ./sqloop submit FILE.jsonl}: submits a JSONL batch, shows progress, writes every final result. Resumable: the
 * batch id is kept beside the input ({@code FILE.jsonl.sqloop-batch}); running the command again resumes waiting
 * instead of submitting again. {@code status}, {@code cancel} and {@code retry} are its companions, nested here.
 */
@Command(name = "submit",
        description = {"Submit a JSONL batch to the gateway and follow it.",
            "",
            "One {\"question\", \"datasource\", \"clientId\"?, \"maxAttempts\"?, \"metadata\"?} per line. Prints the batch id;",
            "with --wait or --out follows the batch with a progress bar and writes every final result. The id is kept in",
            "FILE.jsonl.sqloop-batch: running the command again resumes instead of submitting again."},
        exitCodeListHeading = "%nexit codes:%n",
        exitCodeList = {"0:submitted (and, waited for, every question succeeded)", "1:failed (no gateway, a refusal)",
            "2:usage", "3:the waited batch finished and some of its questions failed"})
public final class SubmitCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "FILE.jsonl", description = "the batch, one question a line")
    Path file;

    @Mixin
    GatewayOptions gateway;

    @Option(names = "--wait", description = "follow the batch until every question is final")
    boolean wait;

    @Option(names = "--out", paramLabel = "FILE", description = "write the final results there (implies --wait)")
    Path out;

    @Option(names = "--resubmit", description = "submit again even if FILE.jsonl.sqloop-batch names a batch")
    boolean resubmit;

    @Option(names = "--retry-failed", description = {"run the failed questions of the batch FILE.jsonl.sqloop-batch names again:",
        "those failed for --reason, by default the outages (" + OUTAGES + "); see ./sqloop retry --help"})
    boolean retryFailed;

    @Option(names = "--reason", paramLabel = "R", split = ",", description = "with --retry-failed: the failure reasons to retry (repeatable, or R,R)")
    List<String> reasons = new ArrayList<>();

    static final String OUTAGES = "llm_unavailable, warehouse_unavailable, infrastructure_error, deadline_exceeded";

    /** {@code ./sqloop status ID [--batch]}: a question's or a batch's status as JSON. */
    @Command(name = "status",
            description = {"Print a question's status (or, with --batch, a batch's) as the gateway serves it."})
    static final class Status implements Callable<Integer> {
        @Mixin
        TargetId target;
        @Mixin
        GatewayOptions gateway;

        @Override
        public Integer call() throws IOException, InterruptedException {
            System.out.println(gateway.client().get(target.path()).toPrettyString());
            return Main.OK;
        }
    }

    /** {@code ./sqloop cancel ID [--batch]}. */
    @Command(name = "cancel",
            description = {"Cancel a question (or, with --batch, a batch).",
                "",
                "What is not final yet ends \"cancelled\" at the next stage it reaches, with no further LLM call. Idempotent;",
                "a finished question or batch is refused with the gateway's reason (409)."})
    static final class Cancel implements Callable<Integer> {
        @Mixin
        TargetId target;
        @Mixin
        GatewayOptions gateway;

        @Override
        public Integer call() throws IOException, InterruptedException {
            System.out.println(gateway.client().delete(target.path(), 202).toPrettyString());
            return Main.OK;
        }
    }

    /** {@code ./sqloop retry ID [--batch] [--reason R]...}. */
    @Command(name = "retry",
            description = {"Run failed questions again once what failed them (the LLM, the warehouse) is back.",
                "",
                "A question (any failure but \"cancelled\"), or with --batch the batch's questions failed for the given",
                "reasons (default: the outages, " + OUTAGES + "; any failure reason but \"cancelled\" may be",
                "named). A retry is not a repair: each question starts again from attempt 1 with its whole budget, at a new",
                "round; the batch's counts drop it until it ends again, and its new result replaces the old. With --wait (or",
                "--out, which writes the batch's results) follows the retried questions until they end."},
            exitCodeListHeading = "%nexit codes:%n",
            exitCodeList = {"0:retried (and, waited for, nothing failed)", "1:failed", "2:usage",
                "3:waited for, and the question (or a question of the batch) failed again"})
    static final class Retry implements Callable<Integer> {
        @Mixin
        TargetId target;
        @Option(names = "--reason", paramLabel = "R", split = ",", description = "with --batch: the failure reasons to retry (repeatable, or R,R)")
        List<String> reasons = new ArrayList<>();
        @Option(names = "--wait", description = "follow the retried questions until they end")
        boolean wait;
        @Option(names = "--out", paramLabel = "FILE", description = "with --batch: write the batch's results there (implies --wait)")
        Path out;
        @Mixin
        GatewayOptions gateway;

        @Override
        public Integer call() throws IOException, InterruptedException {
            GatewayClient client = gateway.client();
            return target.batch ? retryBatch(client, target.id, reasons, wait, out) : retryQuestion(client, target.id, reasons, wait);
        }
    }

    private static int retryQuestion(GatewayClient client, String id, List<String> reasons, boolean wait) throws IOException, InterruptedException {
        if (!reasons.isEmpty()) throw new Args.UsageException("--reason picks a batch's questions: add --batch");
        JsonNode accepted = client.postJson("/v1/questions/" + id + "/retry", "", 202);
        int round = accepted.get("round").asInt();
        System.err.printf("sqloop: retrying question %s (failed for %s) at round %d%n", id, accepted.get("previousReason").asText(), round);
        if (!wait) {
            System.out.println(accepted.toPrettyString());
            return Main.OK;
        }
        while (true) {
            JsonNode s = client.getPatiently("/v1/questions/" + id, Duration.ofMinutes(2));
            String status = s.get("status").asText();
            if (s.path("round").asInt() >= round && (status.equals("succeeded") || status.equals("failed"))) {
                System.out.println(s.toPrettyString());
                if (status.equals("succeeded")) return Main.OK;
                System.err.printf("sqloop: question %s failed again (%s)%n", id, s.path("reason").asText());
                return Main.QUESTIONS_FAILED;
            }
            Thread.sleep(1000);
        }
    }

    private static int retryBatch(GatewayClient client, String batchId, List<String> reasonArgs, boolean waitFlag, Path out)
            throws IOException, InterruptedException {
        List<String> reasons = reasonArgs.stream().map(String::trim).filter(r -> !r.isEmpty()).toList();
        String body = reasons.isEmpty() ? "" : JsonCodec.mapper().writeValueAsString(Map.of("reasons", reasons));
        JsonNode accepted = client.postJson("/v1/batches/" + batchId + "/retry", body, 200, 202);
        int retried = accepted.get("retried").asInt();
        int round = accepted.get("round").asInt();
        System.err.printf("sqloop: retrying %d questions of batch %s at round %d (%s)%n", retried, batchId, round,
                retried == 0 ? "none failed for " + accepted.get("reasons") : accepted.get("byReason"));
        if (!waitFlag && out == null) {
            System.out.println(accepted.toPrettyString());
            return Main.OK;
        }
        JsonNode status = retried == 0 ? client.getPatiently("/v1/batches/" + batchId, Duration.ofMinutes(2))
                : awaitRound(client, batchId, round, retried);
        return finish(client, batchId, status, out);
    }

    /**
     * Writes the batch's results to {@code out} (if given), prints the batch's status, and answers
     * {@link Main#QUESTIONS_FAILED} when any of its questions failed: a script waiting on a batch sees it in the exit code.
     */
    private static int finish(GatewayClient client, String batchId, JsonNode status, Path out) throws IOException, InterruptedException {
        if (out != null) {
            long written = download(client, batchId, out);
            System.err.printf("sqloop: wrote %d results to %s%n", written, out);
        }
        System.out.println(status.toPrettyString());
        long failed = status.path("byStatus").path("failed").asLong(0);
        if (failed == 0) return Main.OK;
        System.err.printf("sqloop: %d of %d questions failed (%s); exit code %d%n", failed, status.path("total").asLong(),
                failureReasons(status.path("byReason")), Main.QUESTIONS_FAILED);
        return Main.QUESTIONS_FAILED;
    }

    /** The batch's reasons that are not successes, {@code reason count, ...}. */
    static String failureReasons(JsonNode byReason) {
        StringBuilder b = new StringBuilder();
        for (Iterator<Map.Entry<String, JsonNode>> it = byReason.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (e.getKey().endsWith("_success")) continue;
            if (!b.isEmpty()) b.append(", ");
            b.append(e.getKey()).append(' ').append(e.getValue().asLong());
        }
        return b.toString();
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

    @Override
    public Integer call() throws IOException, InterruptedException {
        if (!Files.isRegularFile(file)) throw new Args.UsageException("no such file: " + file);
        GatewayClient client = gateway.client();
        Path stateFile = file.resolveSibling(file.getFileName() + ".sqloop-batch");
        if (retryFailed) {
            if (!Files.exists(stateFile)) throw new Args.UsageException("no batch to retry: " + stateFile + " does not exist (submit first)");
            if (resubmit) throw new Args.UsageException("--retry-failed and --resubmit exclude each other");
            return retryBatch(client, Files.readString(stateFile).trim(), reasons, wait, out);
        }
        if (!reasons.isEmpty()) throw new Args.UsageException("--reason goes with --retry-failed");
        String batchId;
        if (Files.exists(stateFile) && !resubmit) {
            batchId = Files.readString(stateFile).trim();
            System.err.println("sqloop: resuming batch " + batchId + " (from " + stateFile + "; --resubmit to submit again)");
        } else {
            JsonNode accepted = client.submitBatchFile(file);
            batchId = accepted.get("batchId").asText();
            Files.writeString(stateFile, batchId + "\n");
            System.err.printf("sqloop: submitted %d questions as batch %s%n", accepted.get("count").asInt(), batchId);
        }
        if (!wait && out == null) {
            System.out.println(batchId);
            return Main.OK;
        }
        return finish(client, batchId, awaitBatch(client, batchId), out);
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
}
