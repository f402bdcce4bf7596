package dev.sqloop.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.runtime.InfrastructureException;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The part of Chroma's HTTP API v2 sqloop uses (as the server's own {@code /openapi.json} describes it, Chroma 1.0):
 * one database of one tenant, its collections by name, and their records ({@code upsert}, {@code get}, {@code query},
 * {@code delete}, {@code count}). Written on the JDK's HTTP client because the Java clients that resolve speak only the
 * v1 API. A call Chroma could not answer (no connection, a timeout, a 5xx) is a {@link ChromaUnavailableException},
 * which the runners retry; a call Chroma refused (4xx) is a {@link ChromaRefusedException} with Chroma's message.
 */
public final class ChromaClient implements AutoCloseable {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final URI base;
    private final String tenant;
    private final String database;
    private final HttpClient http;

    /** @param url the server, e.g. {@code http://localhost:8000} (a path prefix before {@code /api/v2} is kept) */
    public ChromaClient(String url, String tenant, String database) {
        String u = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
        this.base = URI.create(u);
        this.tenant = tenant;
        this.database = database;
        // HTTP/1.1: the JDK would otherwise offer every first request on plain http an h2c upgrade Chroma has no use for
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build();
    }

    /** A collection as Chroma describes it: its id (records are addressed by it), name, distance, dimension once it holds vectors. */
    public record Collection(String id, String name, String space, Integer dimension, Map<String, Object> metadata) {}

    /** Records as {@code get} returns them, by position; documents and metadata null where a record has none. */
    public record Records(List<String> ids, List<String> documents, List<Map<String, Object>> metadatas) {
        public int size() {
            return ids.size();
        }
    }

    /** One {@code query} hit: its id, distance (cosine: 1 − similarity), document and metadata. */
    public record Hit(String id, double distance, String document, Map<String, Object> metadata) {}

    public String url() {
        return base.toString();
    }

    /** The server's version ({@code GET /api/v2/version}). */
    public String version() {
        return call("GET", "/api/v2/version", null).asText();
    }

    /** Creates the tenant and the database unless they exist (both calls are no-ops on an existing one). */
    public void ensureDatabase() {
        if (send("GET", "/api/v2/tenants/" + enc(tenant), null).status() == 404) {
            ObjectNode t = JsonCodec.mapper().createObjectNode().put("name", tenant);
            Answer a = send("POST", "/api/v2/tenants", t);
            if (a.status() != 409 && a.status() / 100 != 2) throw a.failure("creating tenant " + tenant);
        }
        if (send("GET", "/api/v2/tenants/" + enc(tenant) + "/databases/" + enc(database), null).status() == 404) {
            ObjectNode d = JsonCodec.mapper().createObjectNode().put("name", database);
            Answer a = send("POST", "/api/v2/tenants/" + enc(tenant) + "/databases", d);
            if (a.status() != 409 && a.status() / 100 != 2) throw a.failure("creating database " + database);
        }
    }

    /** The collection of this name, or empty when the database has none. */
    public Optional<Collection> collection(String name) {
        Answer a = send("GET", collections() + "/" + enc(name), null);
        if (a.status() == 404) return Optional.empty();
        return Optional.of(toCollection(a.body("getting collection " + name)));
    }

    /**
     * The collection of this name, created with cosine distance and {@code metadata} when missing ({@code get_or_create}:
     * another process creating it at the same moment gets the same one); an existing one is returned as it is.
     */
    public Collection getOrCreateCosine(String name, Map<String, Object> metadata) {
        ObjectNode body = JsonCodec.mapper().createObjectNode().put("name", name).put("get_or_create", true);
        body.putObject("configuration").putObject("hnsw").put("space", "cosine");
        if (!metadata.isEmpty()) body.set("metadata", JsonCodec.mapper().valueToTree(metadata));
        return toCollection(call("POST", collections(), body));
    }

    /** Creates a collection with Chroma's defaults (l2 distance) and no metadata, as another tool would; fails if it exists. */
    public Collection create(String name) {
        return toCollection(call("POST", collections(), JsonCodec.mapper().createObjectNode().put("name", name)));
    }

    public void deleteCollection(String name) {
        Answer a = send("DELETE", collections() + "/" + enc(name), null);
        if (a.status() != 404 && a.status() / 100 != 2) throw a.failure("deleting collection " + name);
    }

    /** Inserts or replaces records by id; {@code documents} and {@code metadatas} may be null. */
    public void upsert(String collectionId, List<String> ids, List<float[]> embeddings, List<String> documents,
                       List<Map<String, Object>> metadatas) {
        if (ids.isEmpty()) return;
        ObjectNode body = JsonCodec.mapper().createObjectNode();
        body.set("ids", JsonCodec.mapper().valueToTree(ids));
        ArrayNode vectors = body.putArray("embeddings");
        for (float[] v : embeddings) {
            ArrayNode a = vectors.addArray();
            for (float f : v) a.add(f);
        }
        if (documents != null) body.set("documents", JsonCodec.mapper().valueToTree(documents));
        if (metadatas != null) body.set("metadatas", JsonCodec.mapper().valueToTree(metadatas));
        call("POST", records(collectionId, "upsert"), body);
    }

    /**
     * Records by id and/or a {@code where} filter (null: none), a page of at most {@code limit} from {@code offset}
     * (null: all), with their documents and metadata when {@code withContent}, else ids only.
     */
    public Records get(String collectionId, List<String> ids, Map<String, Object> where, Integer limit, Integer offset, boolean withContent) {
        ObjectNode body = JsonCodec.mapper().createObjectNode();
        if (ids != null) body.set("ids", JsonCodec.mapper().valueToTree(ids));
        if (where != null) body.set("where", JsonCodec.mapper().valueToTree(where));
        if (limit != null) body.put("limit", limit);
        if (offset != null) body.put("offset", offset);
        ArrayNode include = body.putArray("include");
        if (withContent) include.add("documents").add("metadatas");
        JsonNode r = call("POST", records(collectionId, "get"), body);
        List<String> outIds = new ArrayList<>();
        List<String> docs = new ArrayList<>();
        List<Map<String, Object>> metas = new ArrayList<>();
        for (int i = 0; i < r.path("ids").size(); i++) {
            outIds.add(r.get("ids").get(i).asText());
            docs.add(text(r.path("documents").path(i)));
            metas.add(map(r.path("metadatas").path(i)));
        }
        return new Records(outIds, docs, metas);
    }

    /** The {@code n} records nearest to {@code vector} among those {@code where} admits (null: all), nearest first. */
    public List<Hit> query(String collectionId, float[] vector, int n, Map<String, Object> where) {
        ObjectNode body = JsonCodec.mapper().createObjectNode();
        ArrayNode v = body.putArray("query_embeddings").addArray();
        for (float f : vector) v.add(f);
        body.put("n_results", n);
        if (where != null) body.set("where", JsonCodec.mapper().valueToTree(where));
        body.putArray("include").add("documents").add("metadatas").add("distances");
        JsonNode r = call("POST", records(collectionId, "query"), body);
        List<Hit> hits = new ArrayList<>();
        JsonNode ids = r.path("ids").path(0);
        for (int i = 0; i < ids.size(); i++) {
            hits.add(new Hit(ids.get(i).asText(), r.path("distances").path(0).path(i).asDouble(),
                    text(r.path("documents").path(0).path(i)), map(r.path("metadatas").path(0).path(i))));
        }
        return hits;
    }

    /** Deletes the records with these ids (ids that are not there are ignored). */
    public void delete(String collectionId, List<String> ids) {
        if (ids.isEmpty()) return;
        ObjectNode body = JsonCodec.mapper().createObjectNode();
        body.set("ids", JsonCodec.mapper().valueToTree(ids));
        call("POST", records(collectionId, "delete"), body);
    }

    public long count(String collectionId) {
        return call("GET", records(collectionId, "count"), null).asLong();
    }

    @Override
    public void close() {
        http.close();
    }

    private String collections() {
        return "/api/v2/tenants/" + enc(tenant) + "/databases/" + enc(database) + "/collections";
    }

    private String records(String collectionId, String op) {
        return collections() + "/" + enc(collectionId) + "/" + op;
    }

    private static Collection toCollection(JsonNode c) {
        JsonNode dim = c.path("dimension");
        return new Collection(c.path("id").asText(), c.path("name").asText(),
                c.path("configuration_json").path("hnsw").path("space").asText("l2"),
                dim.isNumber() ? dim.asInt() : null, map(c.path("metadata")));
    }

    private static String text(JsonNode n) {
        return n == null || n.isMissingNode() || n.isNull() ? null : n.asText();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(JsonNode n) {
        if (n == null || !n.isObject()) return Map.of();
        return JsonCodec.mapper().convertValue(n, LinkedHashMap.class);
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private JsonNode call(String method, String path, JsonNode body) {
        Answer a = send(method, path, body);
        return a.body(method + " " + path);
    }

    private Answer send(String method, String path, JsonNode body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(TIMEOUT).header("Accept", "application/json");
        if (body == null) {
            b.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            b.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofByteArray(JsonCodec.encode(body)));
        }
        try {
            HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
            return new Answer(method + " " + path, r.statusCode(), r.body());
        } catch (IOException e) {
            throw new ChromaUnavailableException("Chroma at " + base + " did not answer " + method + " " + path + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while calling Chroma", e);
        }
    }

    private record Answer(String call, int status, String text) {
        JsonNode body(String what) {
            if (status / 100 != 2) throw failure(what);
            try {
                return JsonCodec.mapper().readTree(text);
            } catch (IOException e) {
                throw new ChromaUnavailableException("Chroma answered " + call + " with what is not JSON: " + shorten(text), e);
            }
        }

        RuntimeException failure(String what) {
            String message = text;
            try {
                JsonNode e = JsonCodec.mapper().readTree(text);
                if (e != null && e.hasNonNull("message")) message = e.path("error").asText("") + ": " + e.get("message").asText();
            } catch (IOException notJson) {
                // the raw text says it
            }
            String said = "Chroma " + status + " on " + what + ": " + shorten(message);
            return status >= 500 || status == 429 ? new ChromaUnavailableException(said, null) : new ChromaRefusedException(said, status);
        }

        private static String shorten(String s) {
            return s == null ? "" : s.length() <= 500 ? s : s.substring(0, 500) + "…";
        }
    }

    /** Chroma did not answer, or failed (5xx, 429): the runner retries the record with backoff. */
    public static final class ChromaUnavailableException extends InfrastructureException {
        ChromaUnavailableException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** Chroma refused the call (4xx): retrying the same call would be refused again. */
    public static final class ChromaRefusedException extends IllegalStateException {
        private final int status;

        ChromaRefusedException(String message, int status) {
            super(message);
            this.status = status;
        }

        public int status() {
            return status;
        }
    }
}
