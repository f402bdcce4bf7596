package dev.sqloop.gateway;

import static io.javalin.http.HandlerType.DELETE;
import static io.javalin.http.HandlerType.GET;
import static io.javalin.http.HandlerType.POST;

import dev.sqloop.common.message.ExampleCommand;
import dev.sqloop.common.message.ExampleIds;
import dev.sqloop.common.message.ExampleRecord;
import dev.sqloop.common.sql.SqlNormalizer;
import dev.sqloop.gateway.Answers.ExampleAccepted;
import dev.sqloop.gateway.Answers.ExamplePage;
import dev.sqloop.gateway.Answers.ExampleView;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Objects;
import java.util.Optional;

/**
 * {@code GET/POST/DELETE /v1/examples}: the few-shot examples, read from the {@code examples} topic and changed
 * through commands the fewshot service applies (it stays the only writer of its store).
 *
 * <p>Examples belong to tenants: an example a tenant posted, saved or had captured from its own question is its own,
 * seen (listed, retrieved into prompts, served by the repeat-question shortcut) by it alone; seeds and examples a
 * curator shared ({@code "shared": true}) are seen by every tenant of the datasource. Ids include the owner, so a
 * tenant's post never replaces another tenant's example of the same question: it makes the poster's own. A tenant
 * deletes only its own; shared examples and other tenants' are changed only by curators
 * ({@code SQLOOP_GATEWAY_CURATORS}), who also see every example. Another tenant's example answers 404, as if absent.
 */
final class ExampleEndpoints {
    /** Counter, tag action = upsert | delete: example commands the gateway produced. */
    static final String COMMANDS = "sqloop.gateway.example.commands";
    static final String TAG = "examples";

    private final GatewayConfig config;
    private final Submitter submitter;
    private final ResultsView view;
    private final MeterRegistry registry;
    private final Forwarding forwarding;

    ExampleEndpoints(GatewayConfig config, Submitter submitter, ResultsView view, MeterRegistry registry, Forwarding forwarding) {
        this.forwarding = forwarding;
        this.config = config;
        this.submitter = submitter;
        this.view = view;
        this.registry = registry;
    }

    void register(Javalin app) {
        ApiOperation.route(app, GET, "/v1/examples", this::list, op -> op.id("listExamples", TAG,
                        "List the few-shot examples the caller sees, filtered and paged in id order")
                .description("A tenant sees its own examples and the shared ones (seeds, curator-shared); a curator sees every "
                        + "example. Unknown, repeated or empty query parameters are refused (400 naming the parameter), so a "
                        + "misspelt filter never lists everything.")
                .query(ExampleQuery.parameters(config))
                .answers(200, "One page; nextCursor is absent on the last", ExamplePage.class)
                .refuses(400, 503));
        ApiOperation.route(app, GET, "/v1/examples/{id}", this::get, op -> op.id("getExample", TAG, "One example")
                .answers(200, "The example", ExampleView.class)
                .refuses(404, "not_found: no such example, or another tenant's own").refuses(503));
        ApiOperation.route(app, POST, "/v1/examples", this::add, op -> op.id("addExample", TAG,
                        "Add or replace the caller's own example of a question, or (curators) the shared one")
                .description("Its id is derived from the datasource, the normalized question and the owner, so posting the same "
                        + "question again never creates a duplicate and never replaces another tenant's example. The SQL must be "
                        + "exactly one read-only query as the validator's parser reads it in the datasource's dialect (a 400 with "
                        + "field sql and the parser's reason otherwise).")
                .body(ExampleRequest.class)
                .answers(202, "Accepted: the fewshot service stores it (replacing the question's previous example); listed and "
                        + "retrieved moments later", ExampleAccepted.class)
                .answers(200, "The same question, SQL, notes and tags are already stored: nothing changes (status exists)",
                        ExampleAccepted.class)
                .refuses(400).refuses(403, "forbidden: shared: true from a caller that is not a curator").refuses(413, 415, 503));
        ApiOperation.route(app, DELETE, "/v1/batches/{id}/examples", this::rollbackCaptures, op -> op.id("rollbackBatchCaptures", TAG,
                        "Roll back a batch's captures: delete every example auto-captured from its questions")
                .description("Each example the fewshot service captured from one of the batch's successful questions (its "
                        + "provenance, listed by GET /v1/examples?batch=ID) and the caller may change leaves the listing and "
                        + "retrieval moments after the 202, so a bad batch does not feed later prompts. Examples the batch's "
                        + "questions had before, seeds, saved and posted ones are kept.")
                .answers(202, "Accepted, with how many examples are being deleted", Answers.CapturesRolledBack.class)
                .refuses(404, "not_found: no such batch, or another tenant's").refuses(503));
        ApiOperation.route(app, DELETE, "/v1/examples/{id}", this::delete, op -> op.id("deleteExample", TAG,
                        "Delete an example: it leaves the listing and retrieval moments after the 202")
                .answers(202, "Accepted", ExampleAccepted.class)
                .refuses(403, "forbidden: a seed or a shared example, and the caller is not a curator")
                .refuses(404, "not_found: no such example, or another tenant's own").refuses(503));
    }

    /**
     * Deletes every example auto-captured from the batch's questions that the caller may change (its own; a curator's,
     * every one): one action that keeps a bad batch from feeding later prompts. Read from this instance's copy of the
     * examples table (every instance holds all of it); the batch must be the caller's (404 otherwise, as everywhere).
     */
    private void rollbackCaptures(Context ctx) {
        String tenant = Auth.tenant(ctx);
        String batchId = ctx.pathParam("id");
        forwarding.findBatch(ctx, batchId).orElseThrow(() -> ApiError.notFound("batch " + batchId));
        ExampleQuery query = new ExampleQuery(null, ExampleRecord.AUTO, null, null, null, ExampleQuery.MAX_LIMIT, null,
                config.isCurator(tenant) ? null : tenant, batchId, null);
        int deleted = 0;
        while (true) {
            ExampleQuery.Page page = view.examples(query);
            for (ExampleRecord e : page.examples()) {
                if (!mayChange(tenant, e)) continue;
                submitter.submitExampleCommand(new ExampleCommand(0, e.id(), ExampleCommand.DELETE, tenant, e.datasource(), e.question(),
                        null, null, null, null, submitter.now(), e.owner(), e.shared()));
                registry.counter(COMMANDS, "action", ExampleCommand.DELETE).increment();
                deleted++;
            }
            if (page.nextCursor() == null) break;
            query = query.from(page.nextCursor());
        }
        ctx.status(202).json(new Answers.CapturesRolledBack(batchId, deleted, "/v1/examples?batch=" + batchId));
    }

    private void list(Context ctx) {
        String tenant = Auth.tenant(ctx);
        ExampleQuery query = ExampleQuery.parse(ctx.queryParamMap(), config).visibleTo(config.isCurator(tenant) ? null : tenant);
        ExampleQuery.Page page = view.examples(query);
        ctx.json(new ExamplePage(page.examples().stream().map(e -> view(e, tenant)).toList(), page.examples().size(), page.nextCursor()));
    }

    private void get(Context ctx) {
        String tenant = Auth.tenant(ctx);
        ctx.json(view(find(ctx.pathParam("id"), tenant), tenant));
    }

    /**
     * Idempotent by construction: the id is derived from datasource, normalized question and owner (the caller, or
     * none for a shared example), so a repeated post replaces rather than duplicates; an identical one changes nothing
     * and answers 200 without a command. A post only ever writes the caller's own example or, for a curator, the shared one.
     */
    private void add(Context ctx) {
        Http.requireJson(ctx, "application/json");
        ExampleRequest r = ExampleRequest.parse(Http.parseJson(Http.body(ctx, config.maxBodyBytes())), config);
        String tenant = Auth.tenant(ctx);
        if (r.shared() && !config.isCurator(tenant)) {
            throw new ApiError(403, "forbidden", "only a curator can share an example with every tenant; omit \"shared\" to add your own", "shared", null);
        }
        String owner = r.shared() ? null : tenant;
        String id = ExampleIds.of(r.datasource(), r.question(), owner).toString();
        Optional<ExampleRecord> existing = view.example(id);
        if (existing.isPresent()) {
            ExampleRecord e = existing.get();
            if (SqlNormalizer.sameStatement(e.sql(), r.sql()) && Objects.equals(e.notes(), r.notes()) && e.tags().equals(r.tags())) {
                ctx.status(200).json(accepted(id, "exists"));
                return;
            }
        }
        submitter.submitExampleCommand(new ExampleCommand(0, id, ExampleCommand.UPSERT, tenant, r.datasource(), r.question(), r.sql(),
                config.datasources().get(r.datasource()).wireName(), r.notes(), r.tags(), submitter.now(), owner, r.shared()));
        registry.counter(COMMANDS, "action", ExampleCommand.UPSERT).increment();
        ctx.status(202).json(accepted(id, "accepted"));
    }

    private void delete(Context ctx) {
        String tenant = Auth.tenant(ctx);
        ExampleRecord e = find(ctx.pathParam("id"), tenant);
        if (!mayChange(tenant, e)) {
            throw new ApiError(403, "forbidden", "example " + e.id() + " is " + (e.tenant() == null ? "a seed" : "shared with every tenant")
                    + "; only a curator can delete it", null, null);
        }
        submitter.submitExampleCommand(new ExampleCommand(0, e.id(), ExampleCommand.DELETE, tenant, e.datasource(), e.question(),
                null, null, null, null, submitter.now(), e.owner(), e.shared()));
        registry.counter(COMMANDS, "action", ExampleCommand.DELETE).increment();
        ctx.status(202).json(accepted(e.id(), "accepted"));
    }

    /** The example when {@code tenant} may see it (its own, a shared one, or any for a curator); 404 otherwise, as if absent. */
    private ExampleRecord find(String id, String tenant) {
        return view.example(id).filter(e -> config.isCurator(tenant) || e.visibleTo(tenant))
                .orElseThrow(() -> ApiError.notFound("example " + id));
    }

    /** Curators change any example; a tenant only its own (never a shared one, never another tenant's). */
    private boolean mayChange(String tenant, ExampleRecord e) {
        return config.isCurator(tenant) || (!e.shared() && tenant.equals(e.tenant()));
    }

    private static ExampleAccepted accepted(String id, String status) {
        return new ExampleAccepted(id, status, "/v1/examples/" + id);
    }

    /** An example as the API shows it: the creating tenant stays private, {@code deletable} says what the caller may do. */
    private ExampleView view(ExampleRecord e, String tenant) {
        return new ExampleView(e.id(), e.datasource(), e.question(), e.sql(), e.dialect(), e.source(), e.shared(), e.notes(), e.tags(),
                e.createdAt(), mayChange(tenant, e));
    }
}
