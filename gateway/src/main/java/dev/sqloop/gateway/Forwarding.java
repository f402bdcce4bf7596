package dev.sqloop.gateway;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.sqloop.common.JsonCodec;
import dev.sqloop.gateway.Views.QuestionState;
import io.javalin.http.Context;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;

/**
 * Reads that live on another gateway instance: Kafka Streams partitions the results view, and a key this instance does
 * not own is answered by the owner (one hop: a forwarded request that lands on a non-owner is a 503 to retry).
 */
final class Forwarding {
    static final String FORWARDED = "X-Sqloop-Forwarded";

    private final ResultsView view;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    Forwarding(ResultsView view) {
        this.view = view;
    }

    /** Answers with the owner's response when {@code key} lives on another instance (same method, same body). */
    boolean forwarded(Context ctx, String store, String key) {
        Optional<URI> owner = view.ownerOf(store, key);
        if (owner.isEmpty()) return false;
        if (ctx.header(FORWARDED) != null) {
            throw new ApiError(503, "unavailable", "results are being rebalanced; retry shortly", null, null);
        }
        HttpResponse<String> r = forward(ctx, owner.get(), ctx.path(), true);
        ctx.status(r.statusCode()).contentType(r.headers().firstValue("Content-Type").orElse("application/json")).result(r.body());
        return true;
    }

    /** The question's status view, from the owning instance; empty when unknown to this tenant. */
    Optional<Answers.QuestionStatus> findQuestion(Context ctx, String id) {
        return find(ctx, ResultsView.QUESTIONS, id, "/v1/questions/" + id, Answers.QuestionStatus.class, (QuestionState s) ->
                Auth.tenant(ctx).equals(s.tenant()) ? Optional.of(StatusView.of(id, s)) : Optional.empty());
    }

    /** The batch's status view, from the owning instance; empty when unknown to this tenant. */
    Optional<Answers.BatchReport> findBatch(Context ctx, String id) {
        return find(ctx, ResultsView.BATCH_STATUS, id, "/v1/batches/" + id, Answers.BatchReport.class, (Views.BatchStatus s) ->
                Auth.tenant(ctx).equals(s.manifest().tenant()) ? Optional.of(StatusView.ofBatch(s)) : Optional.empty());
    }

    /**
     * {@code key}'s status view: asked of the owning instance at {@code path} (its tenant check applies there), or read
     * from this instance's {@code store} and shown by {@code local} (empty for another tenant's).
     */
    private <S, A> Optional<A> find(Context ctx, String store, String key, String path, Class<A> answer,
                                    java.util.function.Function<S, Optional<A>> local) {
        Optional<URI> owner = view.ownerOf(store, key);
        if (owner.isPresent()) {
            HttpResponse<String> r = forward(ctx, owner.get(), path, false);
            if (r.statusCode() == 404) return Optional.empty();
            if (r.statusCode() != 200) throw new ApiError(r.statusCode(), "upstream", r.body(), null, null);
            return Optional.of(read(r.body(), answer));
        }
        return view.<S>get(store, key).flatMap(local);
    }

    /** {@code instance}'s own share of the caller's batches ({@code GET /v1/batches} marked forwarded: no further hop). */
    java.util.List<Answers.BatchReport> batchesOf(URI instance, String apiKey, String authorization) {
        HttpResponse<String> r = send(request(instance.resolve("/v1/batches"), apiKey, authorization).GET(),
                "the gateway instance " + instance + " holding batches");
        if (r.statusCode() != 200) throw new ApiError(r.statusCode() == 503 ? 503 : 502, "upstream", r.body(), null, null);
        return read(r.body(), Answers.BatchListing.class).batches();
    }

    /** @param asIs the request's own method and body; else a GET of {@code path} (a status lookup, whatever the request) */
    private HttpResponse<String> forward(Context ctx, URI owner, String path, boolean asIs) {
        HttpRequest.Builder req = request(owner.resolve(path), ctx.header("X-API-Key"), ctx.header("Authorization"));
        if (asIs) {
            Optional.ofNullable(ctx.contentType()).ifPresent(v -> req.header("Content-Type", v));
            req.method(ctx.method().name(), HttpRequest.BodyPublishers.ofByteArray(ctx.bodyAsBytes()));
        } else {
            req.GET();
        }
        return send(req, "the gateway instance owning this key");
    }

    /** A request to another instance, marked forwarded, with the caller's key (its tenant check applies there). */
    private static HttpRequest.Builder request(URI target, String apiKey, String authorization) {
        HttpRequest.Builder req = HttpRequest.newBuilder(target).timeout(Duration.ofSeconds(30)).header(FORWARDED, "1");
        if (apiKey != null) req.header("X-API-Key", apiKey);
        if (authorization != null) req.header("Authorization", authorization);
        return req;
    }

    /** The other instance's answer; one that cannot be reached is a 503 naming {@code whom}. */
    private HttpResponse<String> send(HttpRequest.Builder req, String whom) {
        try {
            return http.send(req.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new ApiError(503, "unavailable", whom + " is unreachable: " + e.getMessage(), null, null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ApiError(503, "unavailable", "interrupted", null, null);
        }
    }

    private static <A> A read(String json, Class<A> answer) {
        try {
            return JsonCodec.mapper().readValue(json, answer);
        } catch (JsonProcessingException e) {
            throw new ApiError(502, "upstream", "invalid answer from another gateway instance", null, null);
        }
    }
}
