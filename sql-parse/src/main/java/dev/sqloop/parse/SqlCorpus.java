package dev.sqloop.parse;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sqloop.common.Dialect;
import dev.sqloop.common.JsonCodec;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The SQL corpora shipped on the classpath under {@code corpus/}, JSON lines of
 * {@code {"dialects":[...],"sql":"...","why":"...","expect":"syntax_error"}} ({@code expect} defaults to
 * {@code read_only_violation}): {@link #EVASIONS} (writes and evasion tricks every
 * validator and executor must stop) and {@link #LEGITIMATE} (read queries that must pass).
 */
public final class SqlCorpus {
    public static final String EVASIONS = "corpus/evasion-corpus.jsonl";
    public static final String LEGITIMATE = "corpus/legit-queries.jsonl";
    /** Correct ClickHouse idioms ({@code {"idiom": …, "sql": …}}), on the database {@link #CLICKHOUSE_IDIOMS_SCHEMA} creates. */
    public static final String CLICKHOUSE_IDIOMS = "corpus/clickhouse-idioms.jsonl";
    public static final String CLICKHOUSE_IDIOMS_SCHEMA = "corpus/clickhouse-idioms-schema.sql";

    /** One ClickHouse idiom: what it shows, and the query. */
    public record Idiom(String name, String sql) {}

    /** {@link #CLICKHOUSE_IDIOMS}, in order. */
    public static List<Idiom> clickHouseIdioms() {
        List<Idiom> out = new ArrayList<>();
        for (String line : text(CLICKHOUSE_IDIOMS).split("\n")) {
            if (line.isBlank()) continue;
            try {
                JsonNode n = JsonCodec.mapper().readTree(line);
                out.add(new Idiom(n.get("idiom").asText(), n.get("sql").asText()));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return out;
    }

    /** The statements of {@link #CLICKHOUSE_IDIOMS_SCHEMA}, comments left out. */
    public static List<String> clickHouseIdiomsSchema() {
        String body = text(CLICKHOUSE_IDIOMS_SCHEMA).lines().filter(l -> !l.startsWith("--")).collect(java.util.stream.Collectors.joining("\n"));
        return java.util.Arrays.stream(body.split(";\\s*\n")).map(String::strip).filter(st -> !st.isEmpty())
                .map(st -> st.endsWith(";") ? st.substring(0, st.length() - 1) : st).toList();
    }

    private static String text(String resource) {
        try (var in = Objects.requireNonNull(SqlCorpus.class.getResourceAsStream("/" + resource), resource)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** One corpus entry for one dialect; {@code expect} is the category a rejection must carry (evasions only). */
    public record Case(Dialect dialect, String sql, String why, String expect) {}

    private SqlCorpus() {}

    public static List<Case> load(String resource) {
        List<Case> out = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(
                Objects.requireNonNull(SqlCorpus.class.getResourceAsStream("/" + resource), resource), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                if (line.isBlank()) continue;
                JsonNode n = JsonCodec.mapper().readTree(line);
                String why = n.has("why") ? n.get("why").asText() : "";
                String expect = n.has("expect") ? n.get("expect").asText() : "read_only_violation";
                for (JsonNode d : n.get("dialects")) out.add(new Case(Dialect.fromWire(d.asText()), n.get("sql").asText(), why, expect));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

}
