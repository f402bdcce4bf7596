package dev.sqloop.embedded.eval;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sqloop.cli.GatewayClient;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The example memory one configuration's questions could see. Eval submits every question with capture off, so no
 * run writes memory (neither question→SQL examples nor error→fix pairs) and every configuration reads the store as it
 * stood when eval began; this record is the evidence: the examples the eval's tenant sees per datasource
 * ({@code GET /v1/examples}, shared and its own), counted and fingerprinted before the configuration's first question
 * and after its last.
 *
 * @param store where the examples live (a gateway, or the in-process pipeline's store)
 * @param atStart per datasource, the examples visible before the first question
 * @param atEnd per datasource, the examples visible after the last result (null while the run has not ended)
 */
public record EvalMemory(String store, Map<String, Examples> atStart, Map<String, Examples> atEnd) {
    /** How many examples, and a digest of their ids, questions and SQL (equal digests: the same examples). */
    public record Examples(int count, String fingerprint) {
        @Override
        public String toString() {
            return count + " (" + fingerprint + ")";
        }
    }

    /** The same memory with what was visible after the last result. */
    EvalMemory ended(Map<String, Examples> end) {
        return new EvalMemory(store, atStart, end);
    }

    /** Whether the run left the examples as it found them (unknown until it ended). */
    boolean unchanged() {
        return atEnd != null && atEnd.equals(atStart);
    }

    /** One line for the report: the store, then per datasource the examples at the start and, if different, at the end. */
    String describe() {
        StringBuilder b = new StringBuilder(store).append("; capture off; examples visible at start: ");
        List<String> parts = new ArrayList<>();
        atStart.forEach((ds, e) -> parts.add(ds + " " + e));
        b.append(parts.isEmpty() ? "none" : String.join(", ", parts));
        if (atEnd == null) b.append("; not read at the end (interrupted)");
        else if (!unchanged()) b.append("; CHANGED during the run, at the end: ").append(atEnd);
        else b.append("; unchanged at the end");
        return b.toString();
    }

    /** The examples {@code client}'s tenant sees for each datasource, every page of {@code GET /v1/examples}. */
    static Map<String, Examples> read(GatewayClient client, Collection<String> datasources) throws Exception {
        Map<String, Examples> out = new TreeMap<>();
        for (String ds : datasources) {
            // ids come in order, so the digest of the pages in order is the digest of the set
            MessageDigest digest = sha256();
            int count = 0;
            String cursor = null;
            do {
                String path = "/v1/examples?datasource=" + URLEncoder.encode(ds, StandardCharsets.UTF_8) + "&limit=1000"
                        + (cursor == null ? "" : "&cursor=" + cursor);
                JsonNode page = client.get(path);
                for (JsonNode e : page.path("examples")) {
                    count++;
                    for (String field : List.of("id", "question", "sql")) {
                        digest.update(e.path(field).asText().getBytes(StandardCharsets.UTF_8));
                        digest.update((byte) 0);
                    }
                }
                cursor = page.hasNonNull("nextCursor") ? page.get("nextCursor").asText() : null;
            } while (cursor != null);
            out.put(ds, new Examples(count, HexFormat.of().formatHex(digest.digest(), 0, 6)));
        }
        return out;
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
