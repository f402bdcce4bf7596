package dev.sqloop.generator;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.sql.SqlTokens;
import dev.sqloop.common.sql.Typos;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns the model's raw answer into one SQL statement or a reason it is not one. Extraction order: a JSON
 * object's {@code sql} field, the first fenced block, the raw text. Then: trailing semicolons stripped,
 * exactly one statement, and no prose, prompt echo or junk. Whether the statement is read-only is the
 * validator's call, not this one's.
 */
public final class OutputGuardrails {
    private static final Pattern FENCE = Pattern.compile("```[ \\t]*([A-Za-z]*)[ \\t]*\\R?(.*?)```", Pattern.DOTALL);
    private static final Set<String> STATEMENT_STARTS = Set.of("select", "with", "values", "table", "(",
            "insert", "update", "delete", "merge", "create", "drop", "alter", "truncate", "grant", "revoke",
            "show", "describe", "desc", "explain", "set", "use", "call");
    /** Headings of our own prompt: an answer that contains them echoed the prompt. */
    private static final List<String> ECHO_MARKERS = List.of("## schema", "## rules", "## similar examples",
            "## instructions", "failed sql:", "fix and regenerate for");
    private static final int MAX_SQL_CHARS = 20_000;

    /** The result of checking one answer. */
    public sealed interface Extraction permits Valid, Invalid {}

    public record Valid(String sql) implements Extraction {}

    /** {@code text} is what the model said (clipped), kept as the attempt's "SQL" so the retry guard can compare. */
    public record Invalid(String reason, String text) implements Extraction {}

    private OutputGuardrails() {}

    public static Extraction check(String answer) {
        String raw = answer == null ? "" : answer.strip();
        if (raw.isEmpty()) return new Invalid("the answer was empty, not a SQL statement", "");
        String candidate = fromJson(raw);
        if (candidate == null && isJsonObject(raw)) {
            return new Invalid("the JSON answer had no \"sql\" string field", clip(raw));
        }
        if (candidate == null) candidate = fromFence(raw);
        if (candidate == null) candidate = raw;
        String sql = stripTrailingSemicolons(candidate.strip());
        String clipped = clip(sql.isEmpty() ? raw : sql);
        if (sql.isEmpty()) return new Invalid("the answer held no SQL statement", clipped);
        if (sql.length() > MAX_SQL_CHARS) return new Invalid("the answer was too long to be one query", clipped);
        String lower = sql.toLowerCase(Locale.ROOT);
        for (String marker : ECHO_MARKERS) {
            if (lower.contains(marker)) return new Invalid("the answer echoed the prompt instead of giving SQL", clipped);
        }
        List<SqlTokens.Token> tokens = SqlTokens.tokenize(sql);
        if (tokens.isEmpty()) return new Invalid("the answer held only comments, not a SQL statement", clipped);
        String first = tokens.getFirst().text().toLowerCase(Locale.ROOT);
        if (!STATEMENT_STARTS.contains(first) && !(misspeltStatementStart(first)
                && tokens.stream().anyMatch(t -> t.text().equalsIgnoreCase("from")))) {
            return new Invalid("the answer was prose, not a SQL statement", clipped);
        }
        if (tokens.stream().anyMatch(t -> t.foldable() && t.text().equals(";"))) {
            return new Invalid("the answer held more than one SQL statement; exactly one is allowed", clipped);
        }
        return new Valid(sql);
    }

    /**
     * An attempted statement whose first keyword has a slip (SELEC, SLECT, WTIH): it has SQL's shape, so it goes on
     * to the dialect parser, which reports a syntax error with the token and its position (evidence a model can act
     * on); "prose" would name neither.
     */
    static boolean misspeltStatementStart(String first) {
        return first.chars().allMatch(c -> Character.isLetter(c) || c == '_') && Typos.misspeltQueryKeyword(first) != null;
    }

    private static String fromJson(String raw) {
        if (!raw.startsWith("{")) return null;
        try {
            JsonNode node = JsonCodec.mapper().readTree(raw);
            JsonNode sql = node == null ? null : node.get("sql");
            return sql != null && sql.isTextual() ? sql.asText() : null;
        } catch (Exception e) {
            return null; // not JSON after all: try the other forms
        }
    }

    private static boolean isJsonObject(String raw) {
        if (!raw.startsWith("{")) return false;
        try {
            return JsonCodec.mapper().readTree(raw).isObject();
        } catch (Exception e) {
            return false;
        }
    }

    private static String fromFence(String raw) {
        Matcher m = FENCE.matcher(raw);
        return m.find() ? m.group(2) : null;
    }

    private static String stripTrailingSemicolons(String sql) {
        String s = sql;
        while (s.endsWith(";")) s = s.substring(0, s.length() - 1).stripTrailing();
        return s;
    }

    private static String clip(String s) {
        return s.length() <= 2000 ? s : s.substring(0, 1999) + "…";
    }
}
