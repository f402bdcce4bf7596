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
 * Turns the model's raw answer into one SQL statement or a reason it is not one. A reasoning block ({@code
 * <think>…</think>}) is dropped first; then the SQL is a JSON object's {@code sql} (or {@code query}) field, the first
 * fenced block (a JSON object in it read the same way; a fence the answer never closed runs to its end), or the raw
 * text, where a lead-in line ("Here is the query:") before the first line starting with SELECT or WITH, a label ({@code
 * SQL:}) or a pair of backticks around the whole are not part of it. Explanations after the statement (after its
 * semicolon, or a paragraph of prose after a blank line) are dropped too: what real models wrap their answer in costs
 * no attempt. Then: trailing semicolons stripped, exactly one statement, and no prose, prompt echo or junk. Whether the
 * statement is read-only is the validator's call, not this one's.
 */
public final class OutputGuardrails {
    /** A fenced block: its language tag, if any, ends its first line ({@code ```sql SELECT 1```} on one line too). */
    private static final Pattern FENCE = Pattern.compile("```[ \\t]*(?:[A-Za-z0-9_+#.-]*[ \\t]*\\R|(?i:sql)[ \\t]+)?(.*?)```",
            Pattern.DOTALL);
    /** An opening fence at a line start that the answer never closes (cut off, or forgotten). */
    private static final Pattern OPEN_FENCE = Pattern.compile("(?m)^[ \\t]*```[ \\t]*[A-Za-z0-9_+#.-]*[ \\t]*\\R(.*)", Pattern.DOTALL);
    private static final Pattern REASONING = Pattern.compile("(?is)<(think|thinking|reasoning)>.*?</\\1>");
    /** The first line that starts a query, after a lead-in. */
    private static final Pattern QUERY_LINE = Pattern.compile(
            "(?im)^[ \\t]*(?:select\\b|with\\s+(?:recursive\\s+)?[\\w\"`]+\\s*(?:\\([^)]*\\)\\s*)?as\\s*(?:(?:not\\s+)?materialized\\s*)?\\()");
    private static final Pattern LABEL = Pattern.compile("(?i)^\\**[ \\t]*(?:sql(?: query)?|query|answer)[ \\t]*\\**[ \\t]*:[ \\t]*\\**[ \\t]*");
    /** A closing fence whose opening one is missing. */
    private static final Pattern STRAY_FENCE = Pattern.compile("\\s*```\\s*$");
    /** A paragraph break: what follows it may be an explanation. */
    private static final Pattern BLANK_LINE = Pattern.compile("\\R[ \\t]*\\R");
    /** Words that go on a query after a blank line; a paragraph starting with another word and reading as a sentence is prose. */
    private static final Set<String> CONTINUATIONS = Set.of("select", "from", "where", "group", "order", "having", "limit",
            "offset", "fetch", "union", "intersect", "except", "minus", "join", "inner", "left", "right", "full", "cross",
            "natural", "outer", "lateral", "on", "using", "and", "or", "not", "as", "case", "when", "then", "else", "end",
            "in", "exists", "between", "like", "is", "window", "qualify", "with", "values", "distinct", "all", "any",
            "cluster", "distribute", "sort", "partition", "over", "rows", "range", "filter", "within", "tablesample");
    private static final Pattern MARKUP = Pattern.compile("^[*_#>]+\\s*");
    private static final Pattern FIRST_WORD = Pattern.compile("^([A-Za-z]+)\\b");
    private static final Pattern SENTENCE_END = Pattern.compile("[a-z)][.!]$");
    private static final Pattern SENTENCE_BREAK = Pattern.compile("[a-z]\\. [A-Z]");
    private static final Pattern LEAD_LABEL = Pattern.compile("^[A-Za-z]+\\**:\\**(\\s|$)");
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
        String raw = REASONING.matcher(answer == null ? "" : answer).replaceAll("");
        // a server that strips the opening tag leaves the reasoning and its closing tag before the answer
        int closed = raw.toLowerCase(Locale.ROOT).lastIndexOf("</think>");
        raw = (closed >= 0 ? raw.substring(closed + "</think>".length()) : raw).strip();
        if (raw.isEmpty()) return new Invalid("the answer was empty, not a SQL statement", "");
        String candidate = fromJson(raw);
        if (candidate == null && isJsonObject(raw)) {
            return new Invalid("the JSON answer had no \"sql\" string field", clip(raw));
        }
        if (candidate == null) {
            String fenced = fromFence(raw);
            if (fenced != null) {
                String json = fromJson(fenced.strip());
                candidate = json != null ? json : fenced;
            }
        }
        if (candidate == null) {
            if (echoes(raw)) return new Invalid("the answer echoed the prompt instead of giving SQL", clip(raw));
            candidate = fromText(raw);
        }
        String sql = stripTrailingSemicolons(withoutExplanation(candidate.strip()));
        String clipped = clip(sql.isEmpty() ? raw : sql);
        if (sql.isEmpty()) return new Invalid("the answer held no SQL statement", clipped);
        if (sql.length() > MAX_SQL_CHARS) return new Invalid("the answer was too long to be one query", clipped);
        if (echoes(sql)) return new Invalid("the answer echoed the prompt instead of giving SQL", clipped);
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

    private static boolean echoes(String text) {
        String lower = text.toLowerCase(Locale.ROOT);
        return ECHO_MARKERS.stream().anyMatch(lower::contains);
    }

    /**
     * The statement in an answer without JSON or a fence: without a label ({@code SQL:}) or backticks around the whole,
     * and from the first line that starts a query when the answer opens with a lead-in sentence; else the answer as it is.
     */
    private static String fromText(String raw) {
        String text = STRAY_FENCE.matcher(LABEL.matcher(raw).replaceFirst("")).replaceFirst("");
        if (text.length() > 2 && text.startsWith("`") && text.endsWith("`") && text.indexOf('`', 1) == text.length() - 1) {
            text = text.substring(1, text.length() - 1).strip();
        }
        Matcher m = QUERY_LINE.matcher(text);
        boolean queryLine = m.find();
        // "With a CTE it reads better:" opens with a statement's keyword, and introduces the query on the next line
        if (queryLine && m.start() > 0 && text.substring(0, m.start()).strip().endsWith(":")) return text.substring(m.start()).strip();
        if (startsStatement(text) || !queryLine) return text;
        return text.substring(m.start()).strip();
    }

    private static boolean startsStatement(String text) {
        List<SqlTokens.Token> tokens = SqlTokens.tokenize(text);
        return !tokens.isEmpty() && (STATEMENT_STARTS.contains(tokens.getFirst().text().toLowerCase(Locale.ROOT))
                || misspeltStatementStart(tokens.getFirst().text().toLowerCase(Locale.ROOT)));
    }

    /**
     * The statement without the explanation a model wrote after it: what follows its semicolon when that does not start
     * another statement (which stays, to be refused as a second one), and a paragraph of prose after a blank line.
     */
    static String withoutExplanation(String sql) {
        Matcher breaks = BLANK_LINE.matcher(sql);
        while (breaks.find()) {
            if (prose(sql.substring(breaks.end()).strip()) && !sql.substring(0, breaks.start()).isBlank()) {
                sql = sql.substring(0, breaks.start()).strip();
                break;
            }
        }
        int semicolon = SqlTokens.firstSemicolon(sql);
        if (semicolon < 0) return sql;
        String rest = sql.substring(semicolon + 1).strip();
        while (rest.startsWith(";")) rest = rest.substring(1).strip();
        // comments or an explanation after the statement go; anything else stays, to be refused as a second statement
        return SqlTokens.tokenize(rest).isEmpty() || prose(rest) ? sql.substring(0, semicolon).strip() : sql;
    }

    /**
     * A paragraph that reads as a sentence: it starts with a word that does not go on a query, has a few words, and
     * ends a sentence ("This query counts the orders." / "Explanation: ...").
     */
    private static boolean prose(String paragraph) {
        String firstLine = MARKUP.matcher(paragraph.lines().findFirst().orElse("").strip()).replaceFirst("");
        Matcher word = FIRST_WORD.matcher(firstLine);
        if (!word.find() || CONTINUATIONS.contains(word.group(1).toLowerCase(Locale.ROOT))) return false;
        int words = firstLine.split("\\s+").length;
        return words >= 2 && firstLine.endsWith(":")
                || words >= 3 && (SENTENCE_END.matcher(firstLine).find() || SENTENCE_BREAK.matcher(firstLine).find())
                || LEAD_LABEL.matcher(firstLine).find();
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
            if (node == null || !node.isObject()) return null;
            for (String field : List.of("sql", "SQL", "query")) {
                JsonNode sql = node.get(field);
                if (sql != null && sql.isTextual()) return sql.asText();
            }
            return null;
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
        if (m.find()) return m.group(1);
        Matcher open = OPEN_FENCE.matcher(raw);
        return open.find() ? open.group(1) : null;
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
