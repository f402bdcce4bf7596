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
        String tenant = Auth.tenant(ctx);
        ExampleQuery query = ExampleQuery.parse(ctx.queryParamMap(), config).visibleTo(config.isCurator(tenant) ? null : tenant);
        ExampleQuery.Page page = view.examples(query);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("examples", page.examples().stream().map(e -> json(e, tenant)).toList());
        out.put("count", page.examples().size());
        if (page.nextCursor() != null) out.put("nextCursor", page.nextCursor());
        ctx.json(out);
    }

    private void get(Context ctx) {
        String tenant = Auth.tenant(ctx);
        ctx.json(json(find(ctx.pathParam("id"), tenant), tenant));
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
        out.put("shared", e.shared());
        if (e.notes() != null) out.put("notes", e.notes());
        out.put("tags", e.tags());
        out.put("createdAt", e.createdAt());
        out.put("deletable", mayChange(tenant, e));
        return out;
    }
}
