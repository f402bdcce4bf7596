package dev.sqloop.gateway;

import static io.javalin.http.HandlerType.DELETE;
import static io.javalin.http.HandlerType.GET;
import static io.javalin.http.HandlerType.POST;

import dev.sqloop.common.message.QuestionResult;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.gateway.Answers.QuestionAccepted;
import dev.sqloop.gateway.Answers.QuestionCancelling;
import dev.sqloop.gateway.Answers.QuestionRetried;
import dev.sqloop.gateway.Answers.QuestionStatus;
import dev.sqloop.gateway.Answers.QuestionTrace;
import dev.sqloop.gateway.Views.QuestionState;
import io.javalin.Javalin;
import io.javalin.http.Context;
import java.util.List;
import java.util.Optional;

/** {@code POST /v1/questions}, {@code GET /v1/questions/{id}} and its {@code /trace}, cancel and retry. */
final class QuestionEndpoints {
    static final String TAG = "questions";
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
    private Optional<QuestionStatus> find(Context ctx, String id) {
        return recent.question(id, Auth.tenant(ctx), () -> forwarding.findQuestion(ctx, id));
    }

    void register(Javalin app) {
        ApiOperation.route(app, POST, "/v1/questions", this::submit, op -> op.id("submitQuestion", TAG, "Submit one question")
                .description("A clientId is a per-tenant idempotency key: a question submitted again with the same clientId answers "
                        + "the existing question (200) and enqueues nothing.")
                .body(QuestionRequest.class)
                .answers(202, "Enqueued", QuestionAccepted.class)
                .answers(200, "The same clientId was submitted before: the existing question", QuestionAccepted.class)
                .refuses(400, 413, 415, 503));
        ApiOperation.route(app, GET, "/v1/questions/{id}", this::get, op -> op.id("getQuestion", TAG, "Status of a question")
                .description("queued, in_progress (with stage), succeeded or failed, with SQL, attempts, reason, error category, "
                        + "preview rows, token usage and timings. A question this instance accepted moments ago is queued here "
                        + "before the results view has it.")
                .answers(200, "Status", QuestionStatus.class)
                .refuses(404, 503));
        ApiOperation.route(app, GET, "/v1/questions/{id}/trace", this::trace, op -> op.id("getQuestionTrace", TAG,
                        "Every attempt of a question: SQL, issues or error, repair decision and reason, SQL diff")
                .answers(200, "Trace (no attempts yet while queued)", QuestionTrace.class)
                .refuses(404, 503));
        ApiOperation.route(app, DELETE, "/v1/questions/{id}", this::cancel, op -> op.id("cancelQuestion", TAG, "Cancel a question")
                .description("A question not yet final ends cancelled (status failed, reason cancelled) at the next stage it reaches, "
                        + "with no further LLM call; idempotent while it is not final.")
                .answers(202, "Cancelling", QuestionCancelling.class)
                .refuses(404).refuses(409, "already_final: the question has already succeeded or failed").refuses(503));
        ApiOperation.route(app, POST, "/v1/questions/{id}/retry", this::retry, op -> op.id("retryQuestion", TAG,
                        "Run a failed question again")
                .description("Once the LLM or warehouse is back (any failure but cancelled): from attempt 1 with its whole budget, "
                        + "at the next round; it shows queued/in_progress with its round until the new result replaces the old (a "
                        + "late result of an older round never does).")
                .answers(202, "Sent again", QuestionRetried.class)
                .refuses(404)
                .refuses(409, "not_final, already_succeeded, cancelled or not_retryable: nothing to retry; unknown_datasource: "
                        + "its datasource is no longer configured")
                .refuses(503));
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
        ctx.status(202).json(new QuestionRetried(id, "queued", round, failed.reason(), "/v1/questions/" + id));
    }

    /** Cancels one question: not yet final, it ends {@code cancelled} at the next stage it reaches; final, a 409. */
    private void cancel(Context ctx) {
        String id = ctx.pathParam("id");
        String state = find(ctx, id).orElseThrow(() -> ApiError.notFound("question " + id)).status();
        if ("succeeded".equals(state) || "failed".equals(state)) {
            throw new ApiError(409, "already_final", "question " + id + " has already " + state, null, null);
        }
        submitter.submitCancellation(dev.sqloop.common.message.Cancellation.ofQuestion(id, Auth.tenant(ctx), submitter.now()));
        ctx.status(202).json(new QuestionCancelling(id, "cancelling", "/v1/questions/" + id));
    }

    /** A reused {@code clientId} answers the existing question with 200 and enqueues nothing. */
    private void submit(Context ctx) {
        Http.requireJson(ctx, "application/json");
        QuestionRequest request = QuestionRequest.parse(Http.parseJson(Http.body(ctx, config.maxBodyBytes())), config);
        String tenant = Auth.tenant(ctx);
        String id = Submitter.questionId(tenant, request.clientId());
        if (request.clientId() != null) {
            Optional<QuestionStatus> existing = find(ctx, id);
            if (existing.isPresent()) {
                ctx.status(200).json(new QuestionAccepted(id, existing.get().status(), "/v1/questions/" + id, id));
                return;
            }
        }
        QuestionTask task = submitter.task(id, tenant, null, request);
        submitter.submitQuestions(List.of(task), Http.traceparent(ctx));
        recent.question(task);
        ctx.status(202).json(new QuestionAccepted(id, "queued", "/v1/questions/" + id, null));
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
        ctx.json(new QuestionTrace(id, state.map(QuestionState::events).orElse(List.of()),
                state.map(StatusView::retries).orElse(java.util.Map.of())));
    }
}
