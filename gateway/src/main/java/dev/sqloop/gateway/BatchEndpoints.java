package dev.sqloop.gateway;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.message.BatchManifest;
import dev.sqloop.common.message.QuestionResult;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.gateway.Views.BatchStatus;
import io.javalin.Javalin;
import io.javalin.http.Context;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.streams.state.KeyValueIterator;

/** {@code POST /v1/batches}, {@code GET /v1/batches/{id}} and its NDJSON {@code /results}. */
final class BatchEndpoints {
    private final GatewayConfig config;
    private final Submitter submitter;
    private final ResultsView view;
    private final Forwarding forwarding;
    private final ObjectMapper mapper = JsonCodec.mapper();

    BatchEndpoints(GatewayConfig config, Submitter submitter, ResultsView view, Forwarding forwarding) {
        this.config = config;
        this.submitter = submitter;
        this.view = view;
        this.forwarding = forwarding;
    }

    void register(Javalin app) {
        app.post("/v1/batches", this::submit);
        app.get("/v1/batches/{id}", this::get);
        app.get("/v1/batches/{id}/results", this::streamResults);
    }

    /**
     * A batch is all-or-nothing: every line is validated first; one bad line refuses the whole batch with its
     * line number and nothing is enqueued. Accepted batches are written in one Kafka transaction.
     */
    private void submit(Context ctx) throws IOException {
        String type = Http.mediaType(ctx);
        List<QuestionRequest> requests = switch (type) {
            case "application/json" -> readJsonArray(ctx.bodyInputStream());
            case "application/x-ndjson", "application/jsonl", "application/json-lines" -> readJsonLines(ctx.bodyInputStream());
            default -> throw new ApiError(415, "unsupported_media_type",
                    "send a JSON array (application/json) or JSON lines (application/x-ndjson)", null, null);
        };
        if (requests.isEmpty()) throw ApiError.badRequest("the batch has no questions", null);
        String tenant = Auth.tenant(ctx);
        String batchId = UUID.randomUUID().toString();
        List<QuestionTask> tasks = new ArrayList<>(requests.size());
        for (QuestionRequest r : requests) tasks.add(submitter.task(Submitter.questionId(tenant, r.clientId()), tenant, batchId, r));
        submitter.submitBatch(new BatchManifest(0, batchId, tenant, tasks.size(), submitter.now()), tasks);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("batchId", batchId);
        out.put("count", tasks.size());
        out.put("statusUrl", "/v1/batches/" + batchId);
        out.put("resultsUrl", "/v1/batches/" + batchId + "/results");
        ctx.status(202).json(out);
    }

    private List<QuestionRequest> readJsonArray(InputStream in) throws IOException {
        List<QuestionRequest> out = new ArrayList<>();
        try (JsonParser p = mapper.getFactory().createParser(in)) {
            if (p.nextToken() != JsonToken.START_ARRAY) throw ApiError.badRequest("a JSON batch must be an array of questions", null);
            int index = 0;
            while (p.nextToken() != JsonToken.END_ARRAY) {
                index++;
                if (index > config.maxBatchSize()) throw tooLarge();
                JsonNode node = mapper.readTree(p);
                try {
                    out.add(QuestionRequest.parse(node, config));
                } catch (ApiError e) {
                    throw e.atLine(index);
                }
            }
        } catch (JsonProcessingException e) {
            throw ApiError.badRequest("invalid JSON: " + e.getOriginalMessage(), null);
        }
        return out;
    }

    private List<QuestionRequest> readJsonLines(InputStream in) throws IOException {
        List<QuestionRequest> out = new ArrayList<>();
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String line;
            int number = 0;
            while ((line = reader.readLine()) != null) {
                number++;
                if (line.isBlank()) continue;
                if (out.size() >= config.maxBatchSize()) throw tooLarge();
                try {
                    out.add(QuestionRequest.parse(Http.parseJson(line), config));
                } catch (ApiError e) {
                    throw e.atLine(number);
                }
            }
        }
        return out;
    }

    private ApiError tooLarge() {
        return new ApiError(413, "too_large", "a batch holds at most " + config.maxBatchSize() + " questions", null, null);
    }

    private void get(Context ctx) {
        String id = ctx.pathParam("id");
        if (forwarding.forwarded(ctx, ResultsView.BATCH_STATUS, id)) return;
        BatchStatus status = view.<BatchStatus>get(ResultsView.BATCH_STATUS, id)
                .filter(s -> Auth.tenant(ctx).equals(s.manifest().tenant()))
                .orElseThrow(() -> ApiError.notFound("batch " + id));
        ctx.json(StatusView.ofBatch(status));
    }

    private void streamResults(Context ctx) throws IOException {
        String id = ctx.pathParam("id");
        if (forwarding.forwarded(ctx, ResultsView.RESULTS_BY_BATCH, id)) return;
        ctx.contentType("application/x-ndjson");
        OutputStream out = ctx.outputStream();
        try (KeyValueIterator<String, QuestionResult> it = view.batchResults(id)) {
            String tenant = Auth.tenant(ctx);
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
