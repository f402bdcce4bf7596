package dev.sqloop.gateway;

import dev.sqloop.common.message.QuestionResult;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.gateway.Views.QuestionState;
import io.javalin.Javalin;
import io.javalin.http.Context;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** {@code POST /v1/questions}, {@code GET /v1/questions/{id}} and its {@code /trace}. */
final class QuestionEndpoints {
    private final GatewayConfig config;
    private final Submitter submitter;
    private final ResultsView view;
    private final Forwarding forwarding;
    private final RecentSubmissions recent;

    QuestionEndpoints(GatewayConfig config, Submitter submitter, ResultsView view, Forwarding forwarding, RecentSubmissions recent) {
        this.config = config;
        this.submitter = submitter;
        this.view = view;
        this.forwarding = forwarding;
        this.recent = recent;
    }

    /** The question's status: the view's, else queued when this instance accepted it moments ago. */
    private Optional<Map<String, Object>> find(Context ctx, String id) {
        return recent.question(id, Auth.tenant(ctx), () -> forwarding.findQuestion(ctx, id));
    }

    void register(Javalin app) {
        app.post("/v1/questions", this::submit);
        app.get("/v1/questions/{id}", this::get);
        app.get("/v1/questions/{id}/trace", this::trace);
        app.delete("/v1/questions/{id}", this::cancel);
        app.post("/v1/questions/{id}/retry", this::retry);
    }

    /**
     * Runs a failed question again from attempt 1 at the next round (see {@link Retries}); in progress, succeeded or
     * cancelled, a 409 that says so. Answered by the instance that owns the question.
     */
    private void retry(Context ctx) {
        String id = ctx.pathParam("id");
        if (forwarding.forwarded(ctx, ResultsView.QUESTIONS, id)) return;
        QuestionState state = view.<QuestionState>get(ResultsView.QUESTIONS, id)
                .filter(s -> Auth.tenant(ctx).equals(s.tenant()))
                .orElse(null);
        if (state == null) {
            // accepted here moments ago, not yet in the view: queued, so nothing to retry (the 409 the view would give)
            if (recent.question(id, Auth.tenant(ctx)).isPresent()) Retries.requireFailed(id, null);
            throw ApiError.notFound("question " + id);
        }
        QuestionResult failed = state.result();
        Retries.requireFailed(id, failed);
        int round = Math.max(state.round(), failed.round()) + 1;
        QuestionTask task = Retries.task(failed, round, submitter, config);
        if (task == null) {
            throw new ApiError(409, "unknown_datasource", "datasource '" + failed.datasource() + "' is no longer configured", null, null);
        }
        Retries.submit(submitter, List.of(task), Http.traceparent(ctx));
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("id", id);
        out.put("status", "queued");
        out.put("round", round);
        out.put("previousReason", failed.reason());
        out.put("statusUrl", "/v1/questions/" + id);
        ctx.status(202).json(out);
    }

    /** Cancels one question: not yet final, it ends {@code cancelled} at the next stage it reaches; final, a 409. */
    private void cancel(Context ctx) {
        String id = ctx.pathParam("id");
        Map<String, Object> status = find(ctx, id).orElseThrow(() -> ApiError.notFound("question " + id));
        Object state = status.get("status");
        if ("succeeded".equals(state) || "failed".equals(state)) {
            throw new ApiError(409, "already_final", "question " + id + " has already " + state, null, null);
        }
        submitter.submitCancellation(dev.sqloop.common.message.Cancellation.ofQuestion(id, Auth.tenant(ctx), submitter.now()));
        ctx.status(202).json(Map.of("id", id, "status", "cancelling", "statusUrl", "/v1/questions/" + id));
    }

    /** A reused {@code clientId} answers the existing question with 200 and enqueues nothing. */
    private void submit(Context ctx) {
        Http.requireJson(ctx, "application/json");
        QuestionRequest request = QuestionRequest.parse(Http.parseJson(Http.body(ctx, config.maxBodyBytes())), config);
        String tenant = Auth.tenant(ctx);
        String id = Submitter.questionId(tenant, request.clientId());
        if (request.clientId() != null) {
            Optional<Map<String, Object>> existing = find(ctx, id);
            if (existing.isPresent()) {
                ctx.status(200).json(accepted(id, "existing", existing.get().get("status")));
                return;
            }
        }
        QuestionTask task = submitter.task(id, tenant, null, request);
        submitter.submitQuestions(List.of(task), Http.traceparent(ctx));
        recent.question(task);
        ctx.status(202).json(accepted(id, null, "queued"));
    }

    private static Map<String, Object> accepted(String id, String note, Object status) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("id", id);
        out.put("status", status);
        out.put("statusUrl", "/v1/questions/" + id);
        if (note != null) out.put("duplicateOf", id);
        return out;
    }

    private void get(Context ctx) {
        String id = ctx.pathParam("id");
        if (recent.question(id, Auth.tenant(ctx)).isPresent()) { // accepted here moments ago: the view's answer once it has one
            ctx.json(find(ctx, id).orElseThrow(() -> ApiError.notFound("question " + id)));
            return;
        }
        if (forwarding.forwarded(ctx, ResultsView.QUESTIONS, id)) return;
        ctx.json(forwarding.findQuestion(ctx, id).orElseThrow(() -> ApiError.notFound("question " + id)));
    }

    private void trace(Context ctx) {
        String id = ctx.pathParam("id");
        if (forwarding.forwarded(ctx, ResultsView.QUESTIONS, id)) return;
        Optional<QuestionState> state = view.<QuestionState>get(ResultsView.QUESTIONS, id)
                .filter(s -> Auth.tenant(ctx).equals(s.tenant()));
        if (state.isEmpty() && recent.question(id, Auth.tenant(ctx)).isEmpty()) throw ApiError.notFound("question " + id);
        // accepted here moments ago and not yet in the view: queued, no attempt yet
        ctx.json(Map.of("id", id, "attempts", state.map(QuestionState::events).orElse(List.of())));
    }
}
