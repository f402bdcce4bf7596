package dev.sqloop.gateway;

import dev.sqloop.common.message.ExampleIds;
import dev.sqloop.common.message.ExampleRecord;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The filters and page of {@code GET /v1/examples}, validated: an unknown, repeated or empty parameter is refused
 * rather than ignored, so a misspelt filter never silently lists everything; a malformed value is a 400 naming the
 * parameter. Examples come in id order; the cursor is the last id of the previous page (an example id, a UUID), so
 * paging stays stable while examples are added or deleted. A cursor that is no example id was silently read as a
 * position in the id order and listed from there (outside probe, issue 44).
 */
record ExampleQuery(String datasource, String source, String text, String prefix, String tag, int limit, String cursor, String viewer,
                    String batch, String owner) {
    static final int DEFAULT_LIMIT = 100;
    static final int MAX_LIMIT = 1000;
    static final int MAX_TEXT_CHARS = 500;
    /** An example id as {@link java.util.UUID#toString()} writes it, the only form ids (so cursors) take. */
    private static final Pattern EXAMPLE_ID = Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
    private static final Pattern LIMIT = Pattern.compile("[0-9]{1,4}");
    /** A batch id as the gateway hands them out (a UUID); bounded so a filter never carries arbitrary text. */
    private static final Pattern BATCH_ID = Pattern.compile("[A-Za-z0-9._:-]{1,100}");

    /** One page, and the cursor of the next one (null when this is the last). */
    record Page(List<ExampleRecord> examples, String nextCursor) {}

    /**
     * The query parameters {@link #parse} reads, as the OpenAPI document describes them: the one list of names both use,
     * so a parameter cannot be read without being documented.
     */
    static List<ApiOperation.QueryParameter> parameters(GatewayConfig config) {
        Map<String, Object> text = Map.of("type", "string", "minLength", 1, "maxLength", MAX_TEXT_CHARS);
        return List.of(
                new ApiOperation.QueryParameter("datasource", "only this datasource (one configured)",
                        Map.of("type", "string", "enum", new TreeSet<>(config.datasources().keySet()))),
                new ApiOperation.QueryParameter("source", "seed (from a seed file), auto (captured from a successful question) or "
                        + "manual (saved by feedback or POSTed)", Map.of("type", "string", "enum", ExampleRecord.SOURCES)),
                new ApiOperation.QueryParameter("q", "case-insensitive text the question or the SQL contains", text),
                new ApiOperation.QueryParameter("prefix", "the question starts with this (compared normalized: case, accents and "
                        + "punctuation ignored)", text),
                new ApiOperation.QueryParameter("tag", "only examples carrying this tag", text),
                new ApiOperation.QueryParameter("batch", "only the examples auto-captured from this batch's questions (their "
                        + "provenance; what DELETE /v1/batches/{id}/examples rolls back)", Map.of("type", "string", "minLength", 1,
                        "maxLength", 100, "pattern", BATCH_ID.pattern())),
                new ApiOperation.QueryParameter("owner", "only the examples this tenant created (asked the captured question, saved "
                        + "or posted it); seeds have no owner", text),
                new ApiOperation.QueryParameter("limit", "page size", Map.of("type", "integer", "minimum", 1, "maximum", MAX_LIMIT,
                        "default", DEFAULT_LIMIT)),
                new ApiOperation.QueryParameter("cursor", "nextCursor of the previous page (an example id); anything else is a 400 "
                        + "with field cursor", Map.of("type", "string", "format", "uuid")));
    }

    static ExampleQuery parse(Map<String, List<String>> params, GatewayConfig config) {
        Set<String> known = new TreeSet<>(parameters(config).stream().map(ApiOperation.QueryParameter::name).toList());
        for (String name : params.keySet()) {
            if (!known.contains(name)) throw ApiError.badRequest("unknown query parameter '" + name + "'; known: " + known, name);
            if (params.get(name).size() > 1) throw ApiError.badRequest(name + " is given more than once", name);
            if (params.get(name).isEmpty() || params.get(name).getFirst().isBlank()) {
                throw ApiError.badRequest(name + " is empty; give it a value or leave it out", name);
            }
        }
        String datasource = single(params, "datasource");
        if (datasource != null && !config.datasources().containsKey(datasource)) {
            throw ApiError.badRequest("unknown datasource '" + datasource + "'; known: " + new TreeSet<>(config.datasources().keySet()), "datasource");
        }
        String source = single(params, "source");
        if (source != null && !ExampleRecord.SOURCES.contains(source)) {
            throw ApiError.badRequest("source must be one of " + ExampleRecord.SOURCES, "source");
        }
        int limit = DEFAULT_LIMIT;
        String l = single(params, "limit");
        if (l != null) {
            limit = LIMIT.matcher(l).matches() ? Integer.parseInt(l) : -1;
            if (limit < 1 || limit > MAX_LIMIT) throw ApiError.badRequest("limit must be an integer between 1 and " + MAX_LIMIT, "limit");
        }
        String cursor = single(params, "cursor");
        if (cursor != null && !EXAMPLE_ID.matcher(cursor).matches()) {
            throw ApiError.badRequest("cursor must be the nextCursor of a previous page (an example id), not '"
                    + (cursor.length() > 60 ? cursor.substring(0, 60) + "…" : cursor) + "'", "cursor");
        }
        String batch = single(params, "batch");
        if (batch != null && !BATCH_ID.matcher(batch).matches()) throw ApiError.badRequest("batch must be a batch id", "batch");
        return new ExampleQuery(datasource, source, bounded(params, "q"), bounded(params, "prefix"), bounded(params, "tag"), limit,
                cursor, null, batch, bounded(params, "owner"));
    }

    /** The same query listing only what {@code viewer} may see (shared examples and its own); null: everything (curators). */
    ExampleQuery visibleTo(String viewer) {
        return new ExampleQuery(datasource, source, text, prefix, tag, limit, cursor, viewer, batch, owner);
    }

    /** The same query from {@code cursor} on (the next page). */
    ExampleQuery from(String cursor) {
        return new ExampleQuery(datasource, source, text, prefix, tag, limit, cursor, viewer, batch, owner);
    }

    private static String single(Map<String, List<String>> params, String name) {
        List<String> v = params.get(name);
        return v == null || v.isEmpty() || v.getFirst().isBlank() ? null : v.getFirst().strip();
    }

    private static String bounded(Map<String, List<String>> params, String name) {
        String v = single(params, name);
        if (v != null && v.length() > MAX_TEXT_CHARS) throw ApiError.badRequest(name + " is longer than " + MAX_TEXT_CHARS + " characters", name);
        return v;
    }

    boolean matches(ExampleRecord e) {
        if (viewer != null && !e.visibleTo(viewer)) return false;
        if (datasource != null && !datasource.equals(e.datasource())) return false;
        if (source != null && !source.equals(e.source())) return false;
        if (tag != null && !e.tags().contains(tag)) return false;
        if (batch != null && !batch.equals(e.batchId())) return false;
        if (owner != null && !owner.equals(e.tenant())) return false;
        if (prefix != null && !ExampleIds.normalize(e.question()).startsWith(ExampleIds.normalize(prefix))) return false;
        if (text != null) {
            String needle = text.toLowerCase(Locale.ROOT);
            return e.question().toLowerCase(Locale.ROOT).contains(needle) || e.sql().toLowerCase(Locale.ROOT).contains(needle);
        }
        return true;
    }

    /** The next page from {@code inIdOrder}, which starts at the cursor (a record with the cursor's id is skipped). */
    Page page(Iterator<ExampleRecord> inIdOrder) {
        List<ExampleRecord> out = new ArrayList<>();
        while (inIdOrder.hasNext()) {
            ExampleRecord e = inIdOrder.next();
            if (e == null || e.id().equals(cursor) || !matches(e)) continue;
            if (out.size() == limit) return new Page(out, out.getLast().id());
            out.add(e);
        }
        return new Page(out, null);
    }
}
