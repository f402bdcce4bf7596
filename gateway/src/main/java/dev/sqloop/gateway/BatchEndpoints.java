package dev.sqloop.gateway;

import static io.javalin.http.HandlerType.DELETE;
import static io.javalin.http.HandlerType.GET;
import static io.javalin.http.HandlerType.POST;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.message.BatchManifest;
import dev.sqloop.common.message.QuestionResult;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.gateway.Answers.BatchAccepted;
import dev.sqloop.gateway.Answers.BatchCancelling;
import dev.sqloop.gateway.Answers.BatchReport;
import dev.sqloop.gateway.Answers.BatchRetried;
import dev.sqloop.gateway.Views.BatchStatus;
import io.javalin.Javalin;
import io.javalin.http.Context;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.Reader;
import java.nio.charset.CharacterCodingException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.kafka.streams.state.KeyValueIterator;

/**
 * {@code POST /v1/batches}, {@code GET /v1/batches/{id}} and its NDJSON {@code /results}, {@code DELETE} (cancel) and
 * {@code POST .../retry}. Every one of them answers 404 for an unknown batch and for another tenant's alike.
 */
final class BatchEndpoints {
    static final String TAG = "batches";
    private final GatewayConfig config;
    private final Submitter submitter;
    private final ResultsView view;
    private final Forwarding forwarding;
    private final RecentSubmissions recent;
    private final BatchList list;
    private final ObjectMapper mapper = JsonCodec.mapper();

    BatchEndpoints(GatewayConfig config, Submitter submitter, ResultsView view, Forwarding forwarding, RecentSubmissions recent,
                   BatchList list) {
        this.recent = recent;
        this.list = list;
        this.config = config;
        this.submitter = submitter;
        this.view = view;
        this.forwarding = forwarding;
    }

    void register(Javalin app) {
        ApiOperation.route(app, POST, "/v1/batches", this::submit, op -> op.id("submitBatch", TAG, "Submit a batch of questions")
                .description("A JSON array (application/json) or JSON lines streamed line by line (application/x-ndjson), up to "
                        + "SQLOOP_GATEWAY_MAX_BATCH questions (" + config.maxBatchSize() + " here), SQLOOP_GATEWAY_MAX_BATCH_BYTES "
                        + "in all and SQLOOP_GATEWAY_MAX_LINE_BYTES per line or element; each limit is a 413 as soon as it is "
                        + "crossed. All or nothing: every line is validated first, one bad line refuses the whole batch with its "
                        + "line number (for a JSON array, the element's 1-based index) and nothing is enqueued; an accepted batch "
                        + "is written in one Kafka transaction. A clientId names a question within its batch: a repeat inside "
                        + "one batch is a 400 naming the repeating line; a later batch reusing it gets a question of its own.")
                .body(ApiOperation.JSON, QuestionRequest[].class, false)
                .body(ApiOperation.NDJSON, QuestionRequest.class, true)
                .answers(202, "Enqueued", BatchAccepted.class)
                .refuses(400, 413, 415, 503));
        ApiOperation.route(app, GET, "/v1/batches", this::list, op -> op.id("listBatches", TAG, "The caller's batches")
                .description("Newest first, at most " + BatchList.MAX + " (truncated says when there are more), each with its "
                        + "progress as GET /v1/batches/{id} answers it; gathered from every gateway instance (each holds a share of "
                        + "the batches). A batch accepted moments ago may not be listed yet.")
                .answers(200, "The batches", Answers.BatchListing.class)
                .refuses(503));
        ApiOperation.route(app, GET, "/v1/batches/{id}", this::get, op -> op.id("getBatch", TAG, "A batch's progress")
                .description("total, finished, pending, counts by status, by reason and (after a retry) by round, done.")
                .answers(200, "Progress", BatchReport.class)
                .refuses(404, 503));
        ApiOperation.route(app, GET, "/v1/batches/{id}/results", this::streamResults, op -> op.id("getBatchResults", TAG,
                        "The batch's final results so far, as JSON lines")
                .description("One result record per finished question (the results topic's value): sql only on success, "
                        + "lastRejectedSql (the refused text of the last attempt) only on failure. A batch accepted moments ago "
                        + "streams nothing yet.")
                .answers(200, "One QuestionResult per line", ApiOperation.NDJSON, QuestionResult.class, true)
                .refuses(404, 503));
        ApiOperation.route(app, DELETE, "/v1/batches/{id}", this::cancel, op -> op.id("cancelBatch", TAG, "Cancel a batch")
                .description("Its questions not yet final end cancelled at the next stage they reach, with no further LLM call. "
                        + "Idempotent: 202 again while questions are pending.")
                .answers(202, "Cancelling, with the number still pending", BatchCancelling.class)
                .refuses(404).refuses(409, "already_final: every question of the batch has a final result").refuses(503));
        ApiOperation.route(app, POST, "/v1/batches/{id}/retry", this::retry, op -> op.id("retryBatch", TAG,
                        "Run a batch's failed questions again")
                .description("All at one new round (one above the batch's highest): those failed for the body's reasons, by "
                        + "default the outages " + new java.util.TreeSet<>(Retries.DEFAULT_REASONS) + "; never cancelled ones. They "
                        + "leave the batch's counts until they end again; the batch's byRound counts each retry round's results.")
                .body(Retries.BatchRetryRequest.class).bodyOptional()
                .answers(202, "Sent again", BatchRetried.class)
                .answers(200, "Nothing failed for those reasons: retried 0", BatchRetried.class)
                .refuses(400, 404, 413, 503));
    }

    /**
     * Runs a batch's failed questions again ({@link Retries}): those failed for the body's {@code reasons}, by default
     * the outages ({@link Retries#DEFAULT_REASONS}). They all get one new round, one above the batch's highest, so a
     * client follows them with {@code byRound} in the batch's status. Answered by the instance owning the batch's
     * results; the batch is read twice (count, then send in transactions of {@link Retries#CHUNK}), never held whole.
     */
    private void retry(Context ctx) {
        String id = ctx.pathParam("id");
        if (forwarding.forwarded(ctx, ResultsView.RESULTS_BY_BATCH, id)) return;
        java.util.Set<String> reasons = Retries.reasons(Http.body(ctx, config.maxBodyBytes()));
        // as GET answers it: a batch accepted here moments ago exists (nothing of it has failed yet)
        find(ctx, id).orElseThrow(() -> ApiError.notFound("batch " + id));
        String tenant = Auth.tenant(ctx);
        int highest = 0;
        try (KeyValueIterator<String, QuestionResult> it = view.batchResults(id)) {
            while (it.hasNext()) highest = Math.max(highest, it.next().value.round());
        }
        int round = highest + 1;
        Map<String, Long> byReason = new java.util.TreeMap<>();
        long skipped = 0;
        int sent = 0;
        List<QuestionTask> chunk = new ArrayList<>(Retries.CHUNK);
        try (KeyValueIterator<String, QuestionResult> it = view.batchResults(id)) {
            while (it.hasNext()) {
                QuestionResult r = it.next().value;
                if (!tenant.equals(r.tenant()) || r.succeeded() || !reasons.contains(r.reason())) continue;
                QuestionTask task = Retries.task(r, round, submitter, config);
                if (task == null) {
                    skipped++;
                    continue;
                }
                chunk.add(task);
                byReason.merge(r.reason(), 1L, Long::sum);
                if (chunk.size() == Retries.CHUNK) {
                    sent += Retries.submit(submitter, chunk, Http.traceparent(ctx));
                    chunk.clear();
                }
            }
            sent += Retries.submit(submitter, chunk, Http.traceparent(ctx));
        } catch (ApiError e) {
            if (sent == 0) throw e;
            throw new ApiError(e.status(), "partial", sent + " questions were sent again before: " + e.getMessage()
                    + "; retrying the batch again sends the rest", null, null);
        }
        ctx.status(sent == 0 ? 200 : 202).json(new BatchRetried(id, sent, round, byReason, new java.util.TreeSet<>(reasons),
                skipped > 0 ? skipped : null, "/v1/batches/" + id));
    }

    /**
     * A batch is all-or-nothing: every line is validated first; one bad line refuses the whole batch with its
     * line number and nothing is enqueued. Accepted batches are written in one Kafka transaction. The body is read
     * as a stream, bounded in total ({@code maxBatchBytes}), per line or element ({@code maxLineBytes}) and in count
     * ({@code maxBatchSize}); each bound is a 413 as soon as it is crossed.
     *
     * <p>A {@code clientId} names a question within its batch: it must be unique there (a repeat is a 400 naming both
     * lines), and the question id is derived from tenant, batch and client id, so a later batch reusing a client id
     * gets its own question and never touches an earlier batch's counts or {@code done}.
     */
    private void submit(Context ctx) throws IOException {
        String type = Http.mediaType(ctx);
        List<QuestionRequest> requests;
        try (InputStream in = Http.boundedBody(ctx, config.maxBatchBytes())) {
            requests = switch (type) {
                case "application/json" -> readJsonArray(in);
                case "application/x-ndjson", "application/jsonl", "application/json-lines" -> readJsonLines(in);
                default -> throw new ApiError(415, "unsupported_media_type",
                        "send a JSON array (application/json) or JSON lines (application/x-ndjson)", null, null);
            };
        }
        if (requests.isEmpty()) throw ApiError.badRequest("the batch has no questions", null);
        String tenant = Auth.tenant(ctx);
        String batchId = UUID.randomUUID().toString();
        List<QuestionTask> tasks = new ArrayList<>(requests.size());
        for (QuestionRequest r : requests) tasks.add(submitter.task(Submitter.batchQuestionId(tenant, batchId, r.clientId()), tenant, batchId, r));
        BatchManifest manifest = new BatchManifest(0, batchId, tenant, tasks.size(), submitter.now());
        submitter.submitBatch(manifest, tasks, Http.traceparent(ctx));
        recent.batch(manifest);
        ctx.status(202).json(new BatchAccepted(batchId, tasks.size(), "/v1/batches/" + batchId, "/v1/batches/" + batchId + "/results"));
    }

    /** Parsed questions plus the line (or element index) each client id was first seen on. */
    private final class Collected {
        final List<QuestionRequest> requests = new ArrayList<>();
        final Map<String, Integer> clientIds = new HashMap<>();

        void add(QuestionRequest r, int line) {
            if (requests.size() >= config.maxBatchSize()) throw tooLarge();
            if (r.clientId() != null) {
                Integer first = clientIds.putIfAbsent(r.clientId(), line);
                if (first != null) {
                    throw new ApiError(400, "invalid_request", "clientId '" + r.clientId() + "' repeats the one on line " + first
                            + "; client ids must be unique within a batch", "clientId", null).atLine(line);
                }
            }
            requests.add(r);
        }
    }

    /** A JSON array, parsed element by element from a strict UTF-8 reader; "line" in errors is the element's 1-based index. */
    private List<QuestionRequest> readJsonArray(InputStream in) throws IOException {
        Collected out = new Collected();
        Reader reader = new InputStreamReader(in, Http.strictUtf8());
        try (JsonParser p = mapper.getFactory().createParser(reader)) {
            p.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
            if (p.nextToken() != JsonToken.START_ARRAY) throw ApiError.badRequest("a JSON batch must be an array of questions", null);
            int index = 0;
            while (p.nextToken() != JsonToken.END_ARRAY) {
                index++;
                if (index > config.maxBatchSize()) throw tooLarge();
                long start = p.currentLocation().getCharOffset();
                JsonNode node;
                try {
                    node = mapper.readTree(p);
                } catch (JsonProcessingException e) {
                    throw ApiError.badRequest(Http.invalidJson(e), null).atLine(index);
                }
                if (p.currentLocation().getCharOffset() - start > config.maxLineBytes()) {
                    throw new ApiError(413, "too_large", "a batch element is larger than " + config.maxLineBytes() + " bytes", null, null).atLine(index);
                }
                try {
                    out.add(QuestionRequest.parse(node, config), index);
                } catch (ApiError e) {
                    throw e.line() == null ? e.atLine(index) : e;
                }
            }
            if (p.nextToken() != null) throw ApiError.badRequest("trailing content after the JSON array", null);
        } catch (JsonProcessingException e) {
            throw ApiError.badRequest(Http.invalidJson(e), null);
        } catch (CharacterCodingException e) {
            throw Http.invalidUtf8();
        }
        return out.requests;
    }

    /** JSON lines, read with a per-line byte bound; each line is one strict JSON object in strict UTF-8. */
    private List<QuestionRequest> readJsonLines(InputStream raw) throws IOException {
        Collected out = new Collected();
        InputStream in = new BufferedInputStream(raw, 64 * 1024);
        int number = 0;
        byte[] line;
        while ((line = Http.readLine(in, config.maxLineBytes(), number + 1)) != null) {
            number++;
            if (Http.isBlank(line)) continue;
            QuestionRequest r;
            try {
                r = QuestionRequest.parse(Http.parseJson(line), config);
            } catch (ApiError e) {
                throw e.atLine(number);
            }
            out.add(r, number);
        }
        return out.requests;
    }

    private ApiError tooLarge() {
        return new ApiError(413, "too_large", "a batch holds at most " + config.maxBatchSize() + " questions", null, null);
    }

    /** The batch's status: the view's, else nothing finished yet when this instance accepted it moments ago. */
    private Optional<BatchReport> find(Context ctx, String id) {
        return recent.batch(id, Auth.tenant(ctx), () -> forwarding.findBatch(ctx, id));
    }

    /** Every instance's share of the caller's batches; a request another instance forwarded answers this one's share. */
    private void list(Context ctx) {
        String tenant = Auth.tenant(ctx);
        List<BatchReport> all = ctx.header(Forwarding.FORWARDED) != null ? list.local(tenant)
                : list.all(tenant, ctx.header("X-API-Key"), ctx.header("Authorization"));
        ctx.json(new Answers.BatchListing(all.size() > BatchList.MAX ? all.subList(0, BatchList.MAX) : all, all.size() > BatchList.MAX));
    }

    private void get(Context ctx) {
        String id = ctx.pathParam("id");
        if (recent.batch(id, Auth.tenant(ctx)).isPresent()) { // accepted here moments ago: the view's answer once it has one
            ctx.json(find(ctx, id).orElseThrow(() -> ApiError.notFound("batch " + id)));
            return;
        }
        if (forwarding.forwarded(ctx, ResultsView.BATCH_STATUS, id)) return;
        BatchStatus status = view.<BatchStatus>get(ResultsView.BATCH_STATUS, id)
                .filter(s -> Auth.tenant(ctx).equals(s.manifest().tenant()))
                .orElseThrow(() -> ApiError.notFound("batch " + id));
        ctx.json(StatusView.ofBatch(status));
    }

    /**
     * Cancels a batch: its questions not yet final end {@code cancelled} at the next stage they reach, with no further
     * LLM call. Idempotent (202 again while questions are pending); a finished batch is a 409 that says so.
     */
    private void cancel(Context ctx) {
        String id = ctx.pathParam("id");
        BatchReport status = find(ctx, id).orElseThrow(() -> ApiError.notFound("batch " + id));
        if (status.done()) {
            throw new ApiError(409, "already_final", "batch " + id + " has finished: nothing to cancel", null, null);
        }
        submitter.submitCancellation(dev.sqloop.common.message.Cancellation.ofBatch(id, Auth.tenant(ctx), submitter.now()));
        ctx.status(202).json(new BatchCancelling(id, "cancelling", status.pending(), "/v1/batches/" + id));
    }

    /**
     * The batch's results as NDJSON. An unknown batch and another tenant's are a 404 alike (an empty 200 told a caller
     * nothing, and answered the same for a batch that exists): the status decides, as {@code GET /v1/batches/{id}}
     * answers it, before the results are streamed from the instance that owns them.
     */
    private void streamResults(Context ctx) throws IOException {
        String id = ctx.pathParam("id");
        String tenant = Auth.tenant(ctx);
        find(ctx, id).orElseThrow(() -> ApiError.notFound("batch " + id));
        ctx.contentType("application/x-ndjson");
        // accepted here moments ago and not yet in the view: nothing has finished (the owner, not knowing it yet, would 404)
        if (recent.batch(id, tenant).isPresent()) return;
        if (forwarding.forwarded(ctx, ResultsView.RESULTS_BY_BATCH, id)) return;
        OutputStream out = ctx.outputStream();
        try (KeyValueIterator<String, QuestionResult> it = view.batchResults(id)) {
            while (it.hasNext()) {
                QuestionResult r = it.next().value;
                if (!tenant.equals(r.tenant())) continue;
                out.write(JsonCodec.encode(r));
                out.write('\n');
            }
        }
        out.flush();
    }
}
