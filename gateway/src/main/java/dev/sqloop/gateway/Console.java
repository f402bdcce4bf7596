package dev.sqloop.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.error.Outcomes;
import dev.sqloop.common.message.AttemptEvent;
import dev.sqloop.common.message.Candidate;
import dev.sqloop.common.message.PromptParts;
import dev.sqloop.common.message.TokenUsage;
import dev.sqloop.common.message.ExampleRecord;
import dev.sqloop.common.message.Execution;
import dev.sqloop.common.message.QuestionResult;
import dev.sqloop.common.sql.SqlDiff;
import dev.sqloop.gateway.Views.BatchProgress;
import dev.sqloop.gateway.Views.BatchStatus;
import dev.sqloop.gateway.Views.QuestionState;
import dev.sqloop.gateway.console.ConsoleModel;
import gg.jte.ContentType;
import gg.jte.TemplateEngine;
import gg.jte.output.StringOutput;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.IntSupplier;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;

/**
 * The review console: HTML pages under {@code /console} on the gateway's own port, where a data team watches its
 * batches, reads each question's attempts and curates the example memory. Pages are jte templates compiled at build
 * time ({@code src/main/jte}, {@link ConsoleModel}); live parts poll with htmx, served from its WebJar like the
 * stylesheet, so nothing is built or fetched at run time.
 *
 * <p>It reads the gateway's own views — the stores {@code GET /v1/batches/{id}}, {@code /v1/questions/{id}} and
 * {@code /v1/examples} answer from, never a copy — and a page for a key another instance owns is answered by that
 * instance. Every change goes through the API itself: the console calls its own gateway's endpoint with the signed-in
 * key, so a save is held to the SQL checks of {@code POST /v1/examples}, and retries, cancels, feedback and deletes
 * follow the API's tenant and curator rules exactly. Tenants see only their own batches, questions and examples;
 * another tenant's ids answer 404 as in the API. See {@link ConsoleSession} for sign-in and CSRF.
 */
final class Console {
    static final String PREFIX = "/console";
    static final int BATCHES_PER_PAGE = 50;
    /**
     * No inline script or style anywhere (jte escapes what is shown; this is the second wall): scripts, styles, fetches
     * and forms only from this origin, and no page of the console inside another site's frame.
     */
    static final String CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
            + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'").withZone(ZoneOffset.UTC);
    private static final Map<String, String> NOTICES = Map.ofEntries(
            Map.entry("saved", "Saved as your example of this question; the fewshot service stores it moments later."),
            Map.entry("marked-wrong", "Marked wrong: its example is deleted and it will not be captured again for you."),
            Map.entry("retried", "Sent again from attempt 1 at the next round."),
            Map.entry("cancelling", "Cancelling: what is not final ends cancelled at the next stage it reaches."),
            Map.entry("deleted", "Deleted: it leaves the listing and retrieval moments later."),
            Map.entry("rolled-back", "Every example this batch captured for you is being deleted."),
            Map.entry("nothing-to-retry", "Nothing to retry: no question of the batch failed for those reasons."),
            Map.entry("retried-batch", "The batch's failures are sent again from attempt 1 at the next round."));
    private static final Map<String, String> ASSETS = Map.of(
            "console.css", "text/css; charset=utf-8",
            "console.js", "text/javascript; charset=utf-8",
            "htmx.min.js", "text/javascript; charset=utf-8");

    private final GatewayConfig config;
    private final ResultsView view;
    private final BatchList batches;
    private final ConsoleSession sessions;
    private final IntSupplier port;
    private final TemplateEngine templates = TemplateEngine.createPrecompiled(null, ContentType.Html, Console.class.getClassLoader(),
            "dev.sqloop.gateway.console");
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final Map<String, byte[]> assets = new HashMap<>();

    /** @param port this gateway's port once started: the console's API calls go to its own gateway */
    Console(GatewayConfig config, ResultsView view, BatchList batches, IntSupplier port, KeyGuesses guesses) {
        this.config = config;
        this.view = view;
        this.batches = batches;
        this.port = port;
        this.sessions = new ConsoleSession(config.apiKeys(), guesses);
    }

    /** Whether {@code path} is the console's (not an API route: neither authenticated by API key nor in the OpenAPI document). */
    static boolean serves(String path) {
        return path.equals("/") || path.equals(PREFIX) || path.startsWith(PREFIX + "/");
    }

    void register(Javalin app) {
        app.before(ctx -> {
            if (!serves(ctx.path())) return;
            ctx.header("Content-Security-Policy", CSP);
            ctx.header("X-Content-Type-Options", "nosniff");
            ctx.header("X-Frame-Options", "DENY");
            ctx.header("Referrer-Policy", "same-origin");
            ctx.header("Cache-Control", "no-store");
        });
        app.get("/", ctx -> ctx.redirect(PREFIX + "/batches", io.javalin.http.HttpStatus.FOUND));
        app.get(PREFIX, ctx -> ctx.redirect(PREFIX + "/batches", io.javalin.http.HttpStatus.FOUND));
        app.get(PREFIX + "/", ctx -> ctx.redirect(PREFIX + "/batches", io.javalin.http.HttpStatus.FOUND));
        app.get(PREFIX + "/assets/{name}", this::asset);
        app.get(PREFIX + "/login", this::loginPage);
        app.post(PREFIX + "/login", this::login);
        app.post(PREFIX + "/logout", page(this::logout));
        app.get(PREFIX + "/batches", page(this::batches));
        app.get(PREFIX + "/batches/{id}", page(this::batch));
        app.get(PREFIX + "/batches/{id}/export.jsonl", page((ctx, signed) -> export(ctx, signed, false)));
        app.get(PREFIX + "/batches/{id}/export.csv", page((ctx, signed) -> export(ctx, signed, true)));
        app.post(PREFIX + "/batches/{id}/retry", action(this::retryBatch));
        app.post(PREFIX + "/batches/{id}/cancel", action(this::cancelBatch));
        app.post(PREFIX + "/batches/{id}/rollback-captures", action(this::rollbackCaptures));
        app.get(PREFIX + "/queue", page(this::queue));
        app.get(PREFIX + "/questions/{id}", page(this::question));
        app.post(PREFIX + "/questions/{id}/save", action(this::save));
        app.post(PREFIX + "/questions/{id}/mark-wrong", action(this::markWrong));
        app.post(PREFIX + "/questions/{id}/retry", action(this::retryQuestion));
        app.post(PREFIX + "/questions/{id}/cancel", action(this::cancelQuestion));
        app.get(PREFIX + "/examples", page(this::examples));
        app.post(PREFIX + "/examples/{id}/delete", action(this::deleteExample));
        // last: any other console path is an HTML 404, not the API's JSON one
        app.get(PREFIX + "/<rest>", page((ctx, signed) -> {
            throw ApiError.notFound("page " + ctx.path());
        }));
    }

    // ---------------------------------------------------------------------------------------------------- plumbing

    private interface PageHandler {
        void handle(Context ctx, ConsoleSession.Signed signed) throws Exception;
    }

    /** A page: signed in (else to the login page), and any refusal shown as an HTML page with its status. */
    private Handler page(PageHandler h) {
        return ctx -> {
            Optional<ConsoleSession.Signed> signed = sessions.signed(ctx);
            if (signed.isEmpty()) {
                if (ctx.method() == io.javalin.http.HandlerType.GET) {
                    ctx.redirect(PREFIX + "/login", io.javalin.http.HttpStatus.SEE_OTHER);
                } else {
                    ctx.status(401);
                    render(ctx, "login.jte", new ConsoleModel.Login("Sign in first: this needs an API key."));
                }
                return;
            }
            try {
                h.handle(ctx, signed.get());
            } catch (ApiError e) {
                failure(ctx, signed.get(), e.status(), e.getMessage());
            }
        };
    }

    /** An action: a page from this origin carrying its CSRF token, else 403 and nothing done. */
    private Handler action(PageHandler h) {
        return page((ctx, signed) -> {
            if (!ConsoleSession.sameOrigin(ctx) || !sessions.validCsrf(signed, ctx.formParam(ConsoleSession.CSRF_FIELD))) {
                throw new ApiError(403, "forbidden", "this form is not from a console page of this session (missing or wrong CSRF "
                        + "token): reload the page and try again", null, null);
            }
            h.handle(ctx, signed);
        });
    }

    private ConsoleModel.Page frame(Context ctx, ConsoleSession.Signed signed, String title, String error) {
        String done = ctx.queryParam("done");
        return new ConsoleModel.Page(title, signed.tenant(), sessions.csrf(signed), sessions.authOff(),
                done == null ? null : NOTICES.get(done), error);
    }

    private void failure(Context ctx, ConsoleSession.Signed signed, int status, String message) {
        ctx.status(status);
        render(ctx, "failure.jte", new ConsoleModel.Failure(frame(ctx, signed, status == 404 ? "Not found" : "Refused", null), status, message));
    }

    private void render(Context ctx, String template, Object model) {
        StringOutput out = new StringOutput();
        templates.render(template, model, out);
        ctx.contentType("text/html; charset=utf-8").result(out.toString());
    }

    private void asset(Context ctx) {
        String name = ctx.pathParam("name");
        String type = ASSETS.get(name);
        if (type == null) throw ApiError.notFound("asset " + name);
        byte[] bytes;
        synchronized (assets) {
            bytes = assets.computeIfAbsent(name, Console::readAsset);
        }
        ctx.header("Cache-Control", "public, max-age=3600").contentType(type).result(bytes);
    }

    /** Our stylesheet and script from this jar, htmx from its WebJar (the version on the classpath, found by its pom). */
    private static byte[] readAsset(String name) {
        String path = "console/" + name;
        if (name.equals("htmx.min.js")) {
            java.util.Properties pom = new java.util.Properties();
            try (InputStream in = resource("META-INF/maven/org.webjars.npm/htmx.org/pom.properties")) {
                pom.load(in);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            path = "META-INF/resources/webjars/htmx.org/" + pom.getProperty("version") + "/dist/htmx.min.js";
        }
        try (InputStream in = resource(path)) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static InputStream resource(String path) throws IOException {
        InputStream in = Console.class.getClassLoader().getResourceAsStream(path);
        if (in == null) throw new IOException("not on the classpath: " + path);
        return in;
    }

    // ------------------------------------------------------------------------------------------------- sign in/out

    private void loginPage(Context ctx) {
        if (sessions.authOff() || sessions.signed(ctx).isPresent()) {
            ctx.redirect(PREFIX + "/batches", io.javalin.http.HttpStatus.SEE_OTHER);
            return;
        }
        render(ctx, "login.jte", new ConsoleModel.Login(null));
    }

    private void login(Context ctx) {
        if (!ConsoleSession.sameOrigin(ctx)) {
            ctx.status(403);
            render(ctx, "login.jte", new ConsoleModel.Login("This sign-in form is not from this console."));
            return;
        }
        String key = ctx.formParam("key");
        if (!sessions.authOff() && key != null && !key.isBlank() && sessions.tenantOf(key).isEmpty()) sessions.wrongKey(ctx);
        if (sessions.authOff() || sessions.tenantOf(key).isEmpty()) {
            ctx.status(sessions.authOff() ? 400 : 401);
            render(ctx, "login.jte", new ConsoleModel.Login(sessions.authOff() ? "This gateway has no API keys: no sign-in needed."
                    : "Unknown API key."));
            return;
        }
        ConsoleSession.signIn(ctx, key);
        ctx.redirect(PREFIX + "/batches", io.javalin.http.HttpStatus.SEE_OTHER);
    }

    private void logout(Context ctx, ConsoleSession.Signed signed) {
        if (!sessions.validCsrf(signed, ctx.formParam(ConsoleSession.CSRF_FIELD))) {
            throw new ApiError(403, "forbidden", "missing or wrong CSRF token", null, null);
        }
        ConsoleSession.signOut(ctx);
        ctx.redirect(PREFIX + "/login", io.javalin.http.HttpStatus.SEE_OTHER);
    }

    // ------------------------------------------------------------------------------------------------------ batches

    private void batches(Context ctx, ConsoleSession.Signed signed) {
        int page = 1;
        String p = ctx.queryParam("page");
        if (p != null && !p.isBlank()) {
            page = p.matches("[0-9]{1,6}") ? Integer.parseInt(p) : 0;
            if (page < 1) throw ApiError.badRequest("page must be a positive integer", "page");
        }
        String state = blankToNull(ctx.queryParam("state"));
        if (state != null && !BATCH_STATES.contains(state)) {
            throw ApiError.badRequest("state must be one of " + BATCH_STATES, "state");
        }
        String q = blankToNull(ctx.queryParam("q"));
        if (q != null && q.length() > 100) throw ApiError.badRequest("q is longer than 100 characters", "q");
        // every instance's batches (each holds a share of them): the list is the same whichever instance the browser reached
        List<ConsoleModel.BatchRow> all = filterBatches(batches.all(signed.tenant(), signed.apiKey(), null).stream().map(Console::row).toList(),
                state, q);
        int from = Math.min(all.size(), (page - 1) * BATCHES_PER_PAGE);
        int to = Math.min(all.size(), from + BATCHES_PER_PAGE);
        List<ConsoleModel.BatchRow> rows = all.subList(from, to);
        String filters = (state == null ? "" : "&state=" + enc(state)) + (q == null ? "" : "&q=" + enc(q));
        render(ctx, "batches.jte", new ConsoleModel.Batches(frame(ctx, signed, "Batches", null), rows,
                rows.stream().anyMatch(r -> !r.done()), to < all.size() ? PREFIX + "/batches?page=" + (page + 1) + filters : null,
                page > 1 ? PREFIX + "/batches?page=" + (page - 1) + filters : null, options(BATCH_STATES, state), q == null ? "" : q,
                state != null || q != null, PREFIX + "/batches?page=" + page + filters));
    }

    /** The batch list's states: still running, done, or with at least one failed question. */
    static final List<String> BATCH_STATES = List.of("running", "done", "with-failures");

    /** The rows a filter keeps: {@code state} one of {@link #BATCH_STATES}, {@code q} a part of the batch id (any case). */
    static List<ConsoleModel.BatchRow> filterBatches(List<ConsoleModel.BatchRow> rows, String state, String q) {
        String needle = q == null ? null : q.toLowerCase(Locale.ROOT);
        return rows.stream()
                .filter(r -> state == null || switch (state) {
                    case "running" -> !r.done();
                    case "done" -> r.done();
                    default -> r.failed() > 0;
                })
                .filter(r -> needle == null || r.id().toLowerCase(Locale.ROOT).contains(needle))
                .toList();
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.strip();
    }

    /** A batch's row from the very report {@code GET /v1/batches/{id}} answers. */
    static ConsoleModel.BatchRow row(Answers.BatchReport r) {
        long first = r.byReason().getOrDefault(Outcomes.FIRST_ATTEMPT_SUCCESS, 0L);
        long corrected = r.byReason().getOrDefault(Outcomes.CORRECTED_SUCCESS, 0L);
        long failed = r.byStatus().getOrDefault(QuestionResult.FAILED, 0L);
        String rate = "—";
        String eta = "—";
        if (!r.done() && r.createdAt() != null) {
            double seconds = Math.max(1, Duration.between(r.createdAt(), Instant.now()).toMillis() / 1000.0);
            double perSecond = r.finished() / seconds;
            rate = String.format(Locale.ROOT, "%.1f/s", perSecond);
            eta = perSecond <= 0 ? "—" : duration((long) Math.ceil(r.pending() / perSecond));
        }
        return new ConsoleModel.BatchRow(r.batchId(), time(r.createdAt()), r.total(), r.finished(), r.pending(), first, corrected, failed,
                (int) Math.floor(r.progress() * 100), r.done(), rate, eta, spent(r.usage()));
    }

    /**
     * Tokens and cost as the pages show them: "812 in (512 cached) · 64 out · $0.0012"; the cost only where a price is
     * configured (SQLOOP_LLM_PRICE_*), the cached part only where the provider reported one; "" for no tokens at all.
     */
    static String spent(TokenUsage u) {
        if (u == null || u.inputTokens() + u.outputTokens() == 0) return "";
        StringBuilder b = new StringBuilder().append(u.inputTokens()).append(" in");
        if (u.cachedInputTokens() > 0) b.append(" (").append(u.cachedInputTokens()).append(" cached)");
        b.append(" · ").append(u.outputTokens()).append(" out");
        if (u.cost() > 0) b.append(" · $").append(String.format(Locale.ROOT, u.cost() >= 1 ? "%.2f" : "%.4f", u.cost()));
        return b.toString();
    }

    /**
     * An attempt's prompt as the page shows it; its tokens are the running sum's step from the attempt before it (the
     * events carry what the question had spent so far).
     */
    private static ConsoleModel.PromptView promptView(PromptParts p, TokenUsage before) {
        TokenUsage own = before == null ? p.usage() : p.usage().plus(before.times(-1));
        return new ConsoleModel.PromptView(p.tables(), p.wholeSchema(), p.examples().stream()
                .map(e -> new ConsoleModel.ExampleShown(e.question(), String.format(Locale.ROOT, "%.2f", e.score()), e.source()))
                .toList(), spent(own));
    }

    private static String duration(long seconds) {
        if (seconds < 120) return seconds + " s";
        if (seconds < 7200) return (seconds / 60) + " min";
        return String.format(Locale.ROOT, "%.1f h", seconds / 3600.0);
    }

    private static String time(Instant at) {
        return at == null ? "" : TIME.format(at);
    }

    /** The batch's status if {@code signed}'s tenant submitted it; 404 otherwise, as the API answers. */
    private BatchStatus ownBatch(String id, ConsoleSession.Signed signed) {
        return view.<BatchStatus>get(ResultsView.BATCH_STATUS, id)
                .filter(s -> s.manifest() != null && signed.tenant().equals(s.manifest().tenant()))
                .orElseThrow(() -> ApiError.notFound("batch " + id));
    }

    private void batch(Context ctx, ConsoleSession.Signed signed) {
        batchPage(ctx, signed, null);
    }

    private void batchPage(Context ctx, ConsoleSession.Signed signed, String error) {
        String id = ctx.pathParam("id");
        if (forwarded(ctx, signed, ResultsView.BATCH_STATUS, id)) return;
        ConsoleTable table = ConsoleTable.parse(ctx.queryParamMap(), config.maxAttemptsLimit(), config.datasources().keySet());
        BatchStatus status = ownBatch(id, signed);
        Answers.BatchReport report = StatusView.ofBatch(status);
        BatchProgress progress = status.progress() == null ? BatchProgress.EMPTY : status.progress();
        ConsoleTable.Page page;
        try (KeyValueIterator<String, QuestionResult> it = view.batchResultsAfter(id, table.cursor())) {
            page = table.page(entries(it), signed.tenant(), ConsoleTable.MAX_SCAN);
        }
        List<ConsoleModel.QuestionRow> rows = page.rows().stream().map(r -> new ConsoleModel.QuestionRow(r.questionId(), r.status(),
                r.reason(), r.attempts(), r.errorCategory() == null ? "" : r.errorCategory().wireName(), r.datasource(), r.question(),
                r.round())).toList();
        List<String> attemptChoices = new ArrayList<>();
        for (int i = 1; i <= Math.max(3, progress.byAttempts().keySet().stream().mapToInt(Integer::parseInt).max().orElse(3)); i++) {
            attemptChoices.add(Integer.toString(i));
        }
        String filters = table.query();
        String base = PREFIX + "/batches/" + id;
        String next = page.nextCursor() == null ? null : base + "?" + (filters.isEmpty() ? "" : filters + "&") + "cursor="
                + URLEncoder.encode(page.nextCursor(), StandardCharsets.UTF_8);
        render(ctx, "batch.jte", new ConsoleModel.Batch(frame(ctx, signed, "Batch " + id, error), row(report),
                counts(report.byReason(), report.finished(), Comparator.comparing((Map.Entry<String, Long> e) -> -e.getValue())),
                counts(progress.byCategory(), report.byStatus().getOrDefault(QuestionResult.FAILED, 0L),
                        Comparator.comparing((Map.Entry<String, Long> e) -> -e.getValue())),
                counts(progress.byAttempts(), report.finished(), Comparator.comparing((Map.Entry<String, Long> e) -> Integer.parseInt(e.getKey()))),
                rows, options(ConsoleTable.outcomes(), table.outcome()), options(ConsoleTable.categories(), table.category()),
                options(attemptChoices, table.attempts() == null ? null : table.attempts().toString()), table.limit(), filters, next,
                page.scanned(), page.scanCut(), table.filtered(), repairs(report.byReason()), firstErrors(id),
                options(new ArrayList<>(new java.util.TreeSet<>(config.datasources().keySet())), table.datasource())));
    }

    /**
     * The batch's questions by their first error, category and stage; null when another gateway instance holds that
     * count (its store is partitioned like the batch's status, but its tasks may be assigned elsewhere).
     */
    private List<ConsoleModel.FirstError> firstErrors(String batchId) {
        try {
            if (view.ownerOf(ResultsView.BATCH_FIRST_ERRORS, batchId).isPresent()) return null;
        } catch (ApiError rebalancing) {
            return null;
        }
        Map<String, Long> counts = view.<Views.FirstErrors>get(ResultsView.BATCH_FIRST_ERRORS, batchId)
                .map(Views.FirstErrors::counts).orElse(Map.of());
        return firstErrorRows(counts);
    }

    static List<ConsoleModel.FirstError> firstErrorRows(Map<String, Long> counts) {
        long whole = counts.values().stream().filter(v -> v > 0).mapToLong(Long::longValue).sum();
        return counts.entrySet().stream().filter(e -> e.getValue() > 0)
                .sorted(Comparator.comparing((Map.Entry<String, Long> e) -> -e.getValue()).thenComparing(Map.Entry::getKey))
                .map(e -> {
                    int at = e.getKey().lastIndexOf('@');
                    return new ConsoleModel.FirstError(at < 0 ? e.getKey() : e.getKey().substring(0, at), at < 0 ? "unknown" : e.getKey().substring(at + 1),
                            e.getValue(), whole <= 0 ? 0 : (int) Math.round(100.0 * e.getValue() / whole));
                }).toList();
    }

    /**
     * How the questions that went to repair ended, by its decision: the repaired SQL ran ({@code corrected_success}),
     * the LLM answered the same SQL again ({@code unchanged_sql}), the budget ran out ({@code max_attempts}), or the
     * error was one repair does not retry ({@code non_retryable}); each as a share of those that went to repair.
     */
    static List<ConsoleModel.Count> repairs(Map<String, Long> byReason) {
        Map<String, Long> decided = new LinkedHashMap<>();
        for (String reason : List.of(Outcomes.CORRECTED_SUCCESS, Outcomes.UNCHANGED_SQL, Outcomes.MAX_ATTEMPTS, Outcomes.NON_RETRYABLE)) {
            decided.put(reason, byReason.getOrDefault(reason, 0L));
        }
        long whole = decided.values().stream().mapToLong(Long::longValue).sum();
        return decided.entrySet().stream()
                .map(e -> new ConsoleModel.Count(e.getKey(), e.getValue(), whole <= 0 ? 0 : (int) Math.round(100.0 * e.getValue() / whole)))
                .toList();
    }

    /** Bars of a split: non-positive counts (progress stored before a count existed, then decremented) are left out. */
    private static List<ConsoleModel.Count> counts(Map<String, Long> counts, long whole, Comparator<Map.Entry<String, Long>> order) {
        return counts.entrySet().stream().filter(e -> e.getValue() > 0).sorted(order)
                .map(e -> new ConsoleModel.Count(e.getKey(), e.getValue(), whole <= 0 ? 0 : (int) Math.round(100.0 * e.getValue() / whole)))
                .toList();
    }

    private static List<ConsoleModel.Option> options(List<String> values, String selected) {
        return values.stream().map(v -> new ConsoleModel.Option(v, v, v.equals(selected))).toList();
    }

    /** The results of a {@code batchId|questionId} store as question id → result. */
    private static StoreEntries entries(KeyValueIterator<String, QuestionResult> it) {
        return new StoreEntries(it);
    }

    /** A store's {@code batchId|questionId} iterator as question id → result; closing it closes the store's. */
    private record StoreEntries(KeyValueIterator<String, QuestionResult> it)
            implements java.util.Iterator<Map.Entry<String, QuestionResult>>, AutoCloseable {
        public boolean hasNext() {
            return it.hasNext();
        }

        public Map.Entry<String, QuestionResult> next() {
            KeyValue<String, QuestionResult> kv = it.next();
            return new java.util.AbstractMap.SimpleImmutableEntry<>(kv.key.substring(kv.key.indexOf('|') + 1), kv.value);
        }

        public void close() {
            it.close();
        }
    }

    /**
     * The batch's results as JSON lines (what {@code /v1/batches/{id}/results} streams) or CSV, with the page's filters,
     * streamed from the store as read: never held whole.
     */
    private void export(Context ctx, ConsoleSession.Signed signed, boolean csv) throws IOException {
        String id = ctx.pathParam("id");
        if (forwarded(ctx, signed, ResultsView.BATCH_STATUS, id)) return;
        ConsoleTable table = ConsoleTable.parse(ctx.queryParamMap(), config.maxAttemptsLimit(), config.datasources().keySet());
        ownBatch(id, signed);
        ctx.contentType(csv ? "text/csv; charset=utf-8" : "application/x-ndjson")
                .header("Content-Disposition", "attachment; filename=\"batch-" + id.replaceAll("[^A-Za-z0-9._-]", "_") + (csv ? ".csv\"" : ".jsonl\""));
        try (KeyValueIterator<String, QuestionResult> it = view.batchResults(id)) {
            OutputStream out = ctx.outputStream();
            if (csv) out.write(ConsoleCsv.HEADER.getBytes(StandardCharsets.UTF_8));
            while (it.hasNext()) {
                QuestionResult r = it.next().value;
                if (r == null || !signed.tenant().equals(r.tenant()) || !table.matches(r)) continue;
                out.write(csv ? ConsoleCsv.line(r).getBytes(StandardCharsets.UTF_8) : JsonCodec.mapper().writeValueAsBytes(r));
                if (!csv) out.write('\n');
            }
        }
    }

    // -------------------------------------------------------------------------------------------------------- queue

    private void queue(Context ctx, ConsoleSession.Signed signed) {
        queuePage(ctx, signed, null);
    }

    /**
     * The review queue over the tenant's batches on this instance, newest first: one page read on from its cursor
     * ({@link ReviewQueue}); a row's flags say why it is there, its forms act through the API as the question page's.
     */
    private void queuePage(Context ctx, ConsoleSession.Signed signed, String error) {
        ReviewQueue queue = ReviewQueue.parse(ctx.queryParamMap());
        Map<String, Answers.BatchReport> byId = new LinkedHashMap<>();
        for (Answers.BatchReport b : batches.local(signed.tenant())) byId.put(b.batchId(), b);
        ReviewQueue.Page page = queue.page(new ArrayList<>(byId.keySet()),
                (batch, after) -> entries(view.batchResultsAfter(batch, after)), signed.tenant(), this::autoCaptured, ConsoleTable.MAX_SCAN);
        List<ConsoleModel.QueueBatch> groups = new ArrayList<>();
        String current = null;
        List<ConsoleModel.QueueRow> rows = null;
        for (ReviewQueue.Item item : page.items()) {
            QuestionResult r = item.result();
            if (!r.batchId().equals(current)) {
                current = r.batchId();
                rows = new ArrayList<>();
                Answers.BatchReport report = byId.get(current);
                groups.add(new ConsoleModel.QueueBatch(current, time(report.createdAt()), report.done(),
                        report.byStatus().getOrDefault(QuestionResult.FAILED, 0L), rows));
            }
            rows.add(new ConsoleModel.QueueRow(r.questionId(), r.question(), r.datasource(), r.status(), r.reason(),
                    r.errorCategory() == null ? "" : r.errorCategory().wireName(), r.attempts(),
                    r.execution() == null ? -1 : r.execution().rowCount(), item.flags(), r.sql() != null ? r.sql() : r.lastRejectedSql(),
                    Retries.retryable(r), r.succeeded()));
        }
        String filters = queue.query();
        String next = page.nextCursor() == null ? null : PREFIX + "/queue?" + (filters.isEmpty() ? "" : filters + "&") + "cursor="
                + URLEncoder.encode(page.nextCursor(), StandardCharsets.UTF_8);
        render(ctx, "queue.jte", new ConsoleModel.Queue(frame(ctx, signed, "Review queue", error), groups,
                options(ReviewQueue.FLAGS, queue.why()), queue.batch(), queue.limit(), queue.queryWithCursor(), next, page.scanned(),
                page.scanCut(), queue.filtered()));
    }

    /** Whether {@code r}'s success is its tenant's auto-captured example now (the example memory's id of its question). */
    private boolean autoCaptured(QuestionResult r) {
        String id = dev.sqloop.common.message.ExampleIds.of(r.datasource(), r.question(), dev.sqloop.common.message.ExampleIds.owner(r.tenant()))
                .toString();
        return view.example(id).filter(e -> ExampleRecord.AUTO.equals(e.source()) && r.questionId().equals(e.questionId())).isPresent();
    }

    /**
     * Where an action returns: the review queue page it was sent from (its filters and cursor re-read as a query, so
     * only a queue page of this console), else {@code page}.
     */
    private static String returnTo(Context ctx, String page) {
        if (!"queue".equals(ctx.formParam("back"))) return page;
        Map<String, List<String>> params = new LinkedHashMap<>();
        String q = ctx.formParam("queue");
        if (q != null && !q.isBlank()) {
            for (String pair : q.split("&")) {
                int eq = pair.indexOf('=');
                if (eq <= 0) continue;
                params.computeIfAbsent(java.net.URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8), k -> new ArrayList<>())
                        .add(java.net.URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        String query = ReviewQueue.parse(params).queryWithCursor();
        return PREFIX + "/queue" + (query.isEmpty() ? "" : "?" + query);
    }

    // ---------------------------------------------------------------------------------------------------- questions

    private void question(Context ctx, ConsoleSession.Signed signed) {
        questionPage(ctx, signed, null);
    }

    private void questionPage(Context ctx, ConsoleSession.Signed signed, String error) {
        String id = ctx.pathParam("id");
        if (forwarded(ctx, signed, ResultsView.QUESTIONS, id)) return;
        QuestionState state = view.<QuestionState>get(ResultsView.QUESTIONS, id)
                .filter(s -> signed.tenant().equals(s.tenant()))
                .orElseThrow(() -> ApiError.notFound("question " + id));
        render(ctx, "question.jte", questionModel(frame(ctx, signed, "Question", error), id, state));
    }

    static ConsoleModel.Question questionModel(ConsoleModel.Page page, String id, QuestionState state) {
        Answers.QuestionStatus status = StatusView.of(id, state);
        QuestionResult r = state.result();
        List<AttemptEvent> events = new ArrayList<>(state.events());
        events.sort(Comparator.comparingInt(AttemptEvent::round).thenComparingInt(AttemptEvent::attempt));
        // each attempt's SQL as its first traced event has it: the diff of an attempt is against the one before it
        Map<String, String> sqlOf = new LinkedHashMap<>();
        for (AttemptEvent e : events) if (e.sql() != null) sqlOf.putIfAbsent(e.round() + "/" + e.attempt(), e.sql());
        List<ConsoleModel.Attempt> trace = new ArrayList<>();
        java.util.Set<String> diffShown = new java.util.HashSet<>();
        TokenUsage spentBefore = null;
        int roundBefore = -1;
        for (AttemptEvent e : events) {
            ConsoleModel.PromptView prompt = null;
            if (e.prompt() != null) {
                if (e.round() != roundBefore) spentBefore = null; // a retry round's usage starts again from its own first attempt
                prompt = promptView(e.prompt(), spentBefore);
                spentBefore = e.prompt().usage();
                roundBefore = e.round();
            }
            String previous = sqlOf.get(e.round() + "/" + (e.attempt() - 1));
            List<ConsoleModel.DiffPart> diff = List.of();
            if (previous != null && e.sql() != null && diffShown.add(e.round() + "/" + e.attempt())) {
                diff = SqlDiff.hunks(previous, e.sql()).stream().map(h -> new ConsoleModel.DiffPart(h.removed(), h.added())).toList();
            }
            trace.add(new ConsoleModel.Attempt(e.round(), e.attempt(), e.stage(), e.kind(), e.sql(),
                    e.issues().stream().map(i -> new ConsoleModel.IssueView(i.stage(), i.category().wireName(), i.message(), i.identifier(),
                            i.candidates(), i.hint())).toList(),
                    e.decision() == null ? "" : e.decision(), e.reason(), e.sqlDiff(), diff, e.durationMillis(), time(e.at()), prompt));
        }
        List<String> columns = List.of();
        List<List<String>> preview = List.of();
        long rowCount = 0;
        Execution x = r == null ? null : r.execution();
        if (x != null) {
            columns = x.columns();
            preview = previewText(x, Integer.MAX_VALUE);
            rowCount = x.rowCount();
        }
        List<ConsoleModel.Count> timings = List.of();
        if (r != null && !r.timings().isEmpty()) {
            long longest = r.timings().values().stream().mapToLong(Long::longValue).max().orElse(1);
            timings = r.timings().entrySet().stream().sorted(Map.Entry.comparingByKey())
                    .map(t -> new ConsoleModel.Count(t.getKey(), t.getValue(), longest <= 0 ? 0 : (int) Math.round(100.0 * t.getValue() / longest)))
                    .toList();
        }
        boolean finished = r != null;
        String editable = r == null ? null : r.sql() != null ? r.sql() : r.lastRejectedSql();
        var sub = state.submission();
        int maxAttempts = r != null && r.maxAttempts() > 0 ? r.maxAttempts() : sub != null ? sub.maxAttempts() : 0;
        return new ConsoleModel.Question(page, id, status.batchId(), status.datasource(), status.question(), status.status(), status.reason(),
                status.errorCategory() == null ? null : status.errorCategory().wireName(), status.errorMessage(),
                r != null ? r.attempts() : status.attempt() == null ? 0 : status.attempt(), maxAttempts, state.round(),
                r == null ? null : r.sql(), r == null ? null : r.lastRejectedSql(), trace, columns, preview, rowCount, timings,
                r == null ? 0 : r.usage().inputTokens(), r == null ? 0 : r.usage().outputTokens(), time(status.submittedAt()),
                status.completedAt() == null ? null : time(status.completedAt()), finished, r != null && Retries.retryable(r), editable,
                r == null ? "" : spent(r.usage()), sub == null ? null : sub.traceId(), r == null ? List.of() : candidateRows(r));
    }

    /**
     * A question's candidates as the selector saw them: grouped by result fingerprint, groups numbered largest first
     * (ties by their first candidate); the chosen one is the first that ran a success's SQL.
     */
    static List<ConsoleModel.CandidateRow> candidateRows(QuestionResult r) {
        if (r.candidates().size() < 2) return List.of();
        Map<String, List<Integer>> byResult = new LinkedHashMap<>();
        for (Candidate c : r.candidates()) if (c.fingerprint() != null) byResult.computeIfAbsent(c.fingerprint(), f -> new ArrayList<>()).add(c.index());
        List<String> order = new ArrayList<>(byResult.keySet());
        order.sort(Comparator.comparingInt((String f) -> -byResult.get(f).size()).thenComparingInt(f -> byResult.get(f).getFirst()));
        // the answer: the first candidate that ran the result's SQL (a majority's winner may be any index)
        int chosen = !r.succeeded() ? 0 : r.candidates().stream().filter(c -> c.votes() && c.sql() != null && c.sql().equals(r.sql()))
                .mapToInt(Candidate::index).min().orElse(0);
        List<ConsoleModel.CandidateRow> rows = new ArrayList<>();
        for (Candidate c : r.candidates()) {
            Execution x = c.execution();
            int group = c.fingerprint() == null ? 0 : order.indexOf(c.fingerprint()) + 1;
            rows.add(new ConsoleModel.CandidateRow(c.index(), c.status(), c.sql(), c.error(), x == null ? 0 : x.rowCount(),
                    x == null ? List.of() : x.columns(), x == null ? List.of() : previewText(x, CANDIDATE_PREVIEW_ROWS),
                    c.fingerprint() == null ? "" : c.fingerprint().substring(0, Math.min(12, c.fingerprint().length())), group,
                    group == 0 ? 0 : byResult.get(c.fingerprint()).size(), c.index() == chosen, c.attempt()));
        }
        return rows;
    }

    /** Candidates stand side by side: a few rows of each is what a reviewer compares. */
    static final int CANDIDATE_PREVIEW_ROWS = 5;

    private static List<List<String>> previewText(Execution x, int rows) {
        return x.preview().stream().limit(rows).map(row -> row.stream().map(v -> v == null ? "NULL" : String.valueOf(v)).toList()).toList();
    }

    // ------------------------------------------------------------------------------------------------------ actions

    /** The API's answer to one of the console's calls. */
    private record Answer(int status, JsonNode body) {
        boolean ok() {
            return status / 100 == 2;
        }

        String message() {
            return body != null && body.hasNonNull("message") ? body.get("message").asText() : "the gateway answered " + status;
        }
    }

    /** Calls this gateway's own API as the signed-in tenant: every rule of the endpoint applies as to any client. */
    private Answer api(ConsoleSession.Signed signed, String method, String path, Object body) {
        HttpRequest.Builder req = HttpRequest.newBuilder(URI.create(selfUrl() + path)).timeout(Duration.ofSeconds(30));
        if (signed.apiKey() != null) req.header("X-API-Key", signed.apiKey());
        try {
            if (body == null) {
                req.method(method, HttpRequest.BodyPublishers.noBody());
            } else {
                req.header("Content-Type", "application/json")
                        .method(method, HttpRequest.BodyPublishers.ofByteArray(JsonCodec.mapper().writeValueAsBytes(body)));
            }
            HttpResponse<String> r = http.send(req.build(), HttpResponse.BodyHandlers.ofString());
            JsonNode json = null;
            try {
                json = r.body() == null || r.body().isBlank() ? null : JsonCodec.mapper().readTree(r.body());
            } catch (IOException notJson) {
                // the status alone says what happened
            }
            return new Answer(r.statusCode(), json);
        } catch (IOException e) {
            throw new ApiError(503, "unavailable", "the gateway's API did not answer: " + e.getMessage(), null, null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ApiError(503, "unavailable", "interrupted", null, null);
        }
    }

    private String selfUrl() {
        String host = config.host();
        if (host.equals("0.0.0.0") || host.equals("::") || host.isBlank()) host = "127.0.0.1";
        if (host.contains(":") && !host.startsWith("[")) host = "[" + host + "]";
        return "http://" + host + ":" + port.getAsInt();
    }

    /** After the API's answer: back to the page with a notice, or the page again with the API's refusal and status. */
    private void after(Context ctx, ConsoleSession.Signed signed, Answer a, String page, String notice, PageRerender again) {
        if (a.ok()) {
            ctx.redirect(page + (page.contains("?") ? "&" : "?") + "done=" + notice, io.javalin.http.HttpStatus.SEE_OTHER);
            return;
        }
        ctx.status(a.status());
        again.render(ctx, signed, a.message());
        ctx.status(a.status());
    }

    private interface PageRerender {
        void render(Context ctx, ConsoleSession.Signed signed, String error);
    }

    private void save(Context ctx, ConsoleSession.Signed signed) {
        String id = ctx.pathParam("id");
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("action", "save");
        String sql = ctx.formParam("sql");
        if (sql != null && !sql.isBlank()) body.put("sql", sql);
        Answer a = api(signed, "POST", "/v1/questions/" + enc(id) + "/feedback", body);
        after(ctx, signed, a, returnTo(ctx, PREFIX + "/questions/" + enc(id)), "saved", this::questionPage);
    }

    private void markWrong(Context ctx, ConsoleSession.Signed signed) {
        String id = ctx.pathParam("id");
        Answer a = api(signed, "POST", "/v1/questions/" + enc(id) + "/feedback", Map.of("action", "mark-wrong"));
        after(ctx, signed, a, returnTo(ctx, PREFIX + "/questions/" + enc(id)), "marked-wrong", this::questionPage);
    }

    private void retryQuestion(Context ctx, ConsoleSession.Signed signed) {
        String id = ctx.pathParam("id");
        Answer a = api(signed, "POST", "/v1/questions/" + enc(id) + "/retry", null);
        after(ctx, signed, a, returnTo(ctx, PREFIX + "/questions/" + enc(id)), "retried", this::questionPage);
    }

    private void cancelQuestion(Context ctx, ConsoleSession.Signed signed) {
        String id = ctx.pathParam("id");
        Answer a = api(signed, "DELETE", "/v1/questions/" + enc(id), null);
        after(ctx, signed, a, returnTo(ctx, PREFIX + "/questions/" + enc(id)), "cancelling", this::questionPage);
    }

    private void retryBatch(Context ctx, ConsoleSession.Signed signed) {
        String id = ctx.pathParam("id");
        // "every failure": every reason the API retries on request (all but cancelled); otherwise its default, the outages
        boolean every = "every".equals(ctx.formParam("failures"));
        Object body = every ? Map.of("reasons", new java.util.TreeSet<>(Retries.RETRYABLE)) : null;
        Answer a = api(signed, "POST", "/v1/batches/" + enc(id) + "/retry", body);
        after(ctx, signed, a, returnTo(ctx, PREFIX + "/batches/" + enc(id)), a.status() == 200 ? "nothing-to-retry" : every ? "retried-batch" : "retried",
                this::batchPage);
    }

    private void cancelBatch(Context ctx, ConsoleSession.Signed signed) {
        String id = ctx.pathParam("id");
        Answer a = api(signed, "DELETE", "/v1/batches/" + enc(id), null);
        after(ctx, signed, a, returnTo(ctx, PREFIX + "/batches/" + enc(id)), "cancelling", this::batchPage);
    }

    private void rollbackCaptures(Context ctx, ConsoleSession.Signed signed) {
        String id = ctx.pathParam("id");
        Answer a = api(signed, "DELETE", "/v1/batches/" + enc(id) + "/examples", null);
        after(ctx, signed, a, PREFIX + "/batches/" + enc(id), "rolled-back", this::batchPage);
    }

    private void deleteExample(Context ctx, ConsoleSession.Signed signed) {
        String id = ctx.pathParam("id");
        Answer a = api(signed, "DELETE", "/v1/examples/" + enc(id), null);
        after(ctx, signed, a, PREFIX + "/examples", "deleted", (c, s, error) -> examplesPage(c, s, error));
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }

    // ----------------------------------------------------------------------------------------------------- examples

    private void examples(Context ctx, ConsoleSession.Signed signed) {
        examplesPage(ctx, signed, null);
    }

    private void examplesPage(Context ctx, ConsoleSession.Signed signed, String error) {
        // the API's own parameters, validated by its own parser; a form's empty field is no filter
        Map<String, List<String>> params = new LinkedHashMap<>();
        for (Map.Entry<String, List<String>> e : ctx.queryParamMap().entrySet()) {
            if (e.getKey().equals("done")) continue;
            List<String> values = e.getValue().stream().filter(v -> !v.isBlank()).toList();
            if (!values.isEmpty()) params.put(e.getKey(), values);
        }
        boolean curator = config.isCurator(signed.tenant());
        ExampleQuery.Page page = view.examples(ExampleQuery.parse(params, config).visibleTo(curator ? null : signed.tenant()));
        String batch = single(params, "batch");
        List<ConsoleModel.ExampleRow> rows = page.examples().stream().map(e -> new ConsoleModel.ExampleRow(e.id(), e.datasource(),
                e.question(), e.sql(), e.source(), e.shared(), time(e.createdAt()),
                curator || (!e.shared() && signed.tenant().equals(e.tenant())), e.batchId(), e.questionId(), e.tenant())).toList();
        String next = null;
        if (page.nextCursor() != null) {
            StringBuilder q = new StringBuilder();
            params.forEach((k, v) -> {
                if (!k.equals("cursor")) q.append(enc(k)).append('=').append(enc(v.getFirst())).append('&');
            });
            next = PREFIX + "/examples?" + q + "cursor=" + enc(page.nextCursor());
        }
        render(ctx, "examples.jte", new ConsoleModel.Examples(frame(ctx, signed, "Examples", error), rows,
                options(ExampleRecord.SOURCES, single(params, "source")),
                options(new ArrayList<>(new java.util.TreeSet<>(config.datasources().keySet())), single(params, "datasource")),
                single(params, "q"), batch, next, single(params, "owner")));
    }

    private static String single(Map<String, List<String>> params, String name) {
        List<String> v = params.get(name);
        return v == null || v.isEmpty() ? null : v.getFirst();
    }

    // --------------------------------------------------------------------------------------------------- forwarding

    /**
     * Answers with the owning instance's page when {@code key} of {@code store} lives on another gateway instance (the
     * view is partitioned across them), asked with the signed-in key; one hop, as the API's {@link Forwarding}.
     */
    private boolean forwarded(Context ctx, ConsoleSession.Signed signed, String store, String key) {
        Optional<URI> owner = view.ownerOf(store, key);
        if (owner.isEmpty()) return false;
        if (ctx.header(Forwarding.FORWARDED) != null) {
            throw new ApiError(503, "unavailable", "results are being rebalanced; retry shortly", null, null);
        }
        String query = ctx.queryString() == null ? "" : "?" + ctx.queryString();
        HttpRequest.Builder req = HttpRequest.newBuilder(owner.get().resolve(ctx.path() + query)).timeout(Duration.ofSeconds(30))
                .header(Forwarding.FORWARDED, "1").GET();
        if (signed.apiKey() != null) req.header("X-API-Key", signed.apiKey());
        try {
            HttpResponse<byte[]> r = http.send(req.build(), HttpResponse.BodyHandlers.ofByteArray());
            ctx.status(r.statusCode()).contentType(r.headers().firstValue("Content-Type").orElse("text/html; charset=utf-8")).result(r.body());
            r.headers().firstValue("Content-Disposition").ifPresent(v -> ctx.header("Content-Disposition", v));
            return true;
        } catch (IOException e) {
            throw new ApiError(503, "unavailable", "the gateway instance owning this page is unreachable: " + e.getMessage(), null, null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ApiError(503, "unavailable", "interrupted", null, null);
        }
    }
}
