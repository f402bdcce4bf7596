package dev.sqloop.gateway;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.message.FeedbackCommand;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;

/**
 * {@code POST /v1/questions/{id}/feedback}: a curator saves the question's SQL (or a corrected one) as an example,
 * unsaves it, or marks it wrong. The body is validated before the question is looked up, so a bad body is a 400
 * whatever the id; the SQL a save stores is parsed once the question is found, in its datasource's dialect
 * ({@link ExampleSql}). The change itself obeys the example ownership rules of {@link ExampleEndpoints}.
 */
final class FeedbackEndpoints {
    private final GatewayConfig config;
    private final Submitter submitter;
    private final Forwarding forwarding;
    private final ExampleEndpoints examples;
    private final RecentSubmissions recent;

    FeedbackEndpoints(GatewayConfig config, Submitter submitter, Forwarding forwarding, ExampleEndpoints examples,
                      RecentSubmissions recent) {
        this.config = config;
        this.submitter = submitter;
        this.forwarding = forwarding;
        this.examples = examples;
        this.recent = recent;
    }

    void register(Javalin app) {
        ApiOperation.route(app, HandlerType.POST, "/v1/questions/{id}/feedback", this::feedback, op -> op
                .id("questionFeedback", QuestionEndpoints.TAG, "Save, unsave or mark wrong the SQL of a question as the caller's example")
                .description("save (the caller's own example of its question), unsave (delete it), mark-wrong (delete it and never "
                        + "capture it again for the caller). A save's SQL (given, or the question's own) is held to the rules of "
                        + "POST /v1/examples: a string, at most SQLOOP_GATEWAY_MAX_SQL_CHARS, exactly one read-only query of the "
                        + "question's datasource's dialect; otherwise 400 (field sql, the parser's reason), checked once the "
                        + "question is found (404 before).")
                .body(FeedbackRequest.class)
                .answers(202, "Accepted: the fewshot service applies it moments later", Answers.FeedbackAccepted.class)
                .refuses(400, 404)
                .refuses(409, "unknown_datasource: a save for a question whose datasource is no longer configured")
                .refuses(413, 415, 503));
    }

    /** What feedback needs of the question's status view. */
    private record Question(String datasource, String question, String sql) {
        static Question of(Answers.QuestionStatus status) {
            return new Question(status.datasource(), status.question(), status.sql());
        }
    }

    private void feedback(Context ctx) {
        Http.requireJson(ctx, "application/json");
        String id = ctx.pathParam("id");
        FeedbackRequest request = FeedbackRequest.parse(Http.parseJson(Http.body(ctx, config.maxBodyBytes())), config);
        // as GET answers it: the view's status, else this instance's own for a question it accepted moments ago (a 404
        // there was a feedback on a question whose statusUrl had just answered 200)
        Question q = Question.of(recent.question(id, Auth.tenant(ctx), () -> forwarding.findQuestion(ctx, id))
                .orElseThrow(() -> ApiError.notFound("question " + id)));
        String sql = request.sql() != null ? request.sql() : q.sql();
        if (request.saves() && (sql == null || sql.isBlank())) {
            throw ApiError.badRequest("save needs SQL: the question has none yet, pass \"sql\"", "sql");
        }
        Dialect dialect = q.datasource() == null ? null : config.datasources().get(q.datasource());
        if (request.saves()) {
            if (dialect == null) {
                throw new ApiError(409, "unknown_datasource", "datasource '" + q.datasource() + "' is no longer configured: "
                        + "nothing to check the SQL against", null, null);
            }
            // a save makes an example: the SQL (passed or the question's own) is held to the rules of POST /v1/examples
            sql = ExampleSql.require(sql, "sql", dialect, config);
        }
        String tenant = Auth.tenant(ctx);
        // feedback changes only the asking tenant's own example of its own question (the fewshot service applies it so)
        submitter.submitFeedback(new FeedbackCommand(0, id, request.action(), tenant, q.datasource(), q.question(), sql,
                dialect == null ? null : dialect.wireName(), submitter.now()));
        ctx.status(202).json(new Answers.FeedbackAccepted(id, request.action(), "accepted"));
    }
}
