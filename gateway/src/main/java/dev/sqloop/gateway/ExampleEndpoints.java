package dev.sqloop.gateway;

import dev.sqloop.common.message.ExampleCommand;
import dev.sqloop.common.message.ExampleIds;
import dev.sqloop.common.message.ExampleRecord;
import dev.sqloop.common.sql.SqlNormalizer;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * {@code GET/POST/DELETE /v1/examples}: the few-shot examples, read from the {@code examples} topic and changed
 * through commands the fewshot service applies (it stays the only writer of its store).
 *
 * <p>Examples are shared per datasource, not per tenant: retrieval picks them by datasource for every tenant's
 * questions, so every tenant sees all of them. Changing one is owned: a tenant replaces or deletes only examples it
 * created (posted, saved, or captured from its own question), and a captured ({@code auto}) example may be replaced
 * by anyone's curated one; seeds and other tenants' examples only by a curator tenant ({@code SQLOOP_GATEWAY_CURATORS}).
 */
final class ExampleEndpoints {
    /** Counter, tag action = upsert | delete: example commands the gateway produced. */
    static final String COMMANDS = "sqloop.gateway.example.commands";

    private final GatewayConfig config;
    private final Submitter submitter;
    private final ResultsView view;
    private final MeterRegistry registry;

    ExampleEndpoints(GatewayConfig config, Submitter submitter, ResultsView view, MeterRegistry registry) {
        this.config = config;
        this.submitter = submitter;
        this.view = view;
        this.registry = registry;
    }

    void register(Javalin app) {
        app.get("/v1/examples", this::list);
        app.get("/v1/examples/{id}", this::get);
        app.post("/v1/examples", this::add);
        app.delete("/v1/examples/{id}", this::delete);
    }

    private void list(Context ctx) {
        ExampleQuery query = ExampleQuery.parse(ctx.queryParamMap(), config);
        ExampleQuery.Page page = view.examples(query);
        String tenant = Auth.tenant(ctx);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("examples", page.examples().stream().map(e -> json(e, tenant)).toList());
        out.put("count", page.examples().size());
        if (page.nextCursor() != null) out.put("nextCursor", page.nextCursor());
        ctx.json(out);
    }

    private void get(Context ctx) {
        ctx.json(json(find(ctx.pathParam("id")), Auth.tenant(ctx)));
    }

    /**
     * Idempotent by construction: the id is derived from datasource and normalized question, so a repeated post
     * replaces rather than duplicates; an identical one changes nothing and answers 200 without a command.
     */
    private void add(Context ctx) {
        Http.requireJson(ctx, "application/json");
        ExampleRequest r = ExampleRequest.parse(Http.parseJson(ctx.body()), config);
        String tenant = Auth.tenant(ctx);
        String id = ExampleIds.of(r.datasource(), r.question()).toString();
        Optional<ExampleRecord> existing = view.example(id);
        if (existing.isPresent()) {
            ExampleRecord e = existing.get();
            if (SqlNormalizer.sameStatement(e.sql(), r.sql()) && Objects.equals(e.notes(), r.notes()) && e.tags().equals(r.tags())) {
                ctx.status(200).json(accepted(id, "exists"));
                return;
            }
            if (!mayChange(tenant, e) && !ExampleRecord.AUTO.equals(e.source())) {
                throw new ApiError(409, "conflict", "an example for this question already exists on datasource '" + r.datasource()
                        + "' (id " + id + ") and was not created by you; a curator can replace it", "question", null);
            }
        }
        submitter.submitExampleCommand(new ExampleCommand(0, id, ExampleCommand.UPSERT, tenant, r.datasource(), r.question(), r.sql(),
                config.datasources().get(r.datasource()).wireName(), r.notes(), r.tags(), submitter.now()));
        registry.counter(COMMANDS, "action", ExampleCommand.UPSERT).increment();
        ctx.status(202).json(accepted(id, "accepted"));
    }

    private void delete(Context ctx) {
        ExampleRecord e = find(ctx.pathParam("id"));
        String tenant = Auth.tenant(ctx);
        if (!mayChange(tenant, e)) {
            throw new ApiError(403, "forbidden", "example " + e.id() + " is " + (e.tenant() == null ? "a seed" : "another tenant's")
                    + "; only its creator or a curator can delete it", null, null);
        }
        submitter.submitExampleCommand(new ExampleCommand(0, e.id(), ExampleCommand.DELETE, tenant, e.datasource(), e.question(),
                null, null, null, null, submitter.now()));
        registry.counter(COMMANDS, "action", ExampleCommand.DELETE).increment();
        ctx.status(202).json(accepted(e.id(), "accepted"));
    }

    /**
     * Feedback on a question changes the example stored for it, so the same ownership rules apply: a tenant may
     * not {@code save} over, {@code unsave} or {@code mark-wrong} an example another tenant or a seed owns.
     * {@code replacing}: a save, which (like a POST) may replace a captured example.
     */
    void requireMayChange(String tenant, String datasource, String question, boolean replacing) {
        if (datasource == null || question == null) return;
        view.example(ExampleIds.of(datasource, question).toString()).ifPresent(e -> {
            if (mayChange(tenant, e) || (replacing && ExampleRecord.AUTO.equals(e.source()))) return;
            throw new ApiError(403, "forbidden", "the example for this question (id " + e.id() + ") is "
                    + (e.tenant() == null ? "a seed" : "another tenant's") + "; only its creator or a curator can change it", null, null);
        });
    }

    private ExampleRecord find(String id) {
        return view.example(id).orElseThrow(() -> ApiError.notFound("example " + id));
    }

    private boolean mayChange(String tenant, ExampleRecord e) {
        return config.isCurator(tenant) || tenant.equals(e.tenant());
    }

    private static Map<String, Object> accepted(String id, String status) {
        return Map.of("id", id, "status", status, "url", "/v1/examples/" + id);
    }

    /** An example as the API shows it: the creating tenant stays private, {@code deletable} says what the caller may do. */
    private Map<String, Object> json(ExampleRecord e, String tenant) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("id", e.id());
        out.put("datasource", e.datasource());
        out.put("question", e.question());
        out.put("sql", e.sql());
        out.put("dialect", e.dialect());
        out.put("source", e.source());
        if (e.notes() != null) out.put("notes", e.notes());
        out.put("tags", e.tags());
        out.put("createdAt", e.createdAt());
        out.put("deletable", mayChange(tenant, e));
        return out;
    }
}
