package dev.sqloop.testkit.llm;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An LLM that knows the gold SQL of every question. On a first request it answers the gold SQL with one
 * injected fault, drawn from a configurable mix; on a correction request it answers the gold SQL only if the
 * correction prompt carries the evidence (the offending identifier or the error text) — otherwise it repeats
 * the faulty answer. So whether a question gets repaired measures whether the feedback reached the model.
 *
 * <p>Strict like an outside model: the question is the one named in the <em>last</em> user message (earlier turns
 * and the system prompt may hold few-shot examples with other questions); a correction request is one whose last
 * user message says "regenerate" or "failed sql"; and the evidence counts only when found in that message after
 * removing the faulty answer (exactly or with its whitespace changed) and the question, which both contain it
 * trivially. The system prompt never counts as evidence.
 */
public final class OracleResponder implements Responder {
    private static final Set<String> KEYWORDS = Set.of("select", "from", "where", "group", "by", "order", "having",
            "limit", "offset", "as", "and", "or", "not", "in", "is", "null", "join", "left", "right", "inner", "outer",
            "full", "cross", "on", "using", "case", "when", "then", "else", "end", "distinct", "asc", "desc", "with",
            "union", "all", "intersect", "except", "between", "like", "ilike", "exists", "true", "false", "interval",
            "date", "timestamp", "over", "partition", "rows", "range", "nulls", "first", "last", "cast", "filter",
            "within", "lateral", "values", "current_date", "current_timestamp", "day", "month", "year", "week", "hour",
            "minute", "second", "quarter", "extract", "escape", "any", "some", "top", "qualify", "window", "natural");
    private static final Pattern WORD = Pattern.compile("\"[^\"]*\"|'(?:[^']|'')*'|[A-Za-z_][A-Za-z0-9_]*|\\S");
    private static final Pattern GROUP_BY = Pattern.compile(
            "(?i)\\s+GROUP\\s+BY\\s+(.+?)(?=\\s+(?:HAVING|ORDER|LIMIT|QUALIFY|WINDOW|UNION)\\b|\\)|$)", Pattern.DOTALL);

    private final Map<String, String> gold;
    private final Questions.Index index;
    private final Map<String, Fault> assigned;
    private final Map<Fault, Double> mix;
    private final String dialect;
    private final Map<String, String> dialects;
    private final long seed;
    private final Map<String, Injection> injections = new ConcurrentHashMap<>();
    /** Questions whose first answer reads one table whole (the cost guard's case): question → table. */
    private final Map<String, String> costly = new ConcurrentHashMap<>();
    /** Issue 50's silent variants: which candidates answer one (none by default). */
    private Silent silent = Silent.NONE;
    /** Issue 50's failing candidates: question → candidates (2 on) whose first answer the engine refuses. */
    private final Map<String, Set<Integer>> failing = new ConcurrentHashMap<>();
    /** The share of candidates 2 on whose first answer the engine refuses, drawn per question and candidate (0: none). */
    private double failingRate;
    /** The line the generator adds to candidate k's prompt ("Candidate 2 of 3: …"); absent: candidate 1. */
    private static final Pattern CANDIDATE = Pattern.compile("(?i)\\bcandidate\\s+(\\d+)\\s+of\\s+\\d+");

    /**
     * @param rate the share of candidates that answer a silent variant, drawn per question and candidate from the seed
     * @param byQuestion question → the candidates (1-based) that answer one, whatever the rate
     */
    private record Silent(double rate, Map<String, Set<Integer>> byQuestion) {
        static final Silent NONE = new Silent(0, Map.of());
    }

    private OracleResponder silent(Silent s) {
        this.silent = s;
        return this;
    }

    /** An estimate as the cost guard words it: "estimates 56 rows", "estimates 1.2 GB". */
    private static final Pattern ESTIMATE = Pattern.compile("estimat\\w*\\s+~?\\d");

    /**
     * @param gold question → gold SQL
     * @param mix fault → weight; questions without an assigned fault draw one
     * @param dialect {@code trino}, {@code presto}, {@code postgres}, {@code duckdb}, {@code sparksql}, {@code hive} or
     *                {@code clickhouse}: the engine the questions run on, which shapes the mistakes, the error texts and the evidence
     */
    public OracleResponder(Map<String, String> gold, Map<Fault, Double> mix, String dialect, long seed) {
        this(gold, Map.of(), mix, dialect, Map.of(), seed);
    }

    private OracleResponder(Map<String, String> gold, Map<String, Fault> assigned, Map<Fault, Double> mix, String dialect,
                            Map<String, String> dialects, long seed) {
        this.gold = new LinkedHashMap<>(gold);
        this.index = new Questions.Index(this.gold.keySet());
        this.assigned = Map.copyOf(assigned);
        this.mix = mix.isEmpty() ? Map.of(Fault.NONE, 1.0) : new EnumMap<>(mix);
        this.dialect = dialect.toLowerCase(Locale.ROOT);
        Map<String, String> lower = new LinkedHashMap<>();
        dialects.forEach((q, d) -> lower.put(q, d.toLowerCase(Locale.ROOT)));
        this.dialects = Map.copyOf(lower);
        this.seed = seed;
    }

    /** Every classic fault except NONE with equal weight (issue 46's signal kinds are opt-in: {@link #signalMix()}). */
    public static Map<Fault, Double> uniformMix() {
        Map<Fault, Double> m = new EnumMap<>(Fault.class);
        for (Fault f : Fault.classic()) if (f != Fault.NONE) m.put(f, 1.0);
        return m;
    }

    /** Issue 46's signal kinds with equal weight, and NONE as often as the demo's mix answers right at once (35 %). */
    public static Map<Fault, Double> signalMix() {
        Map<Fault, Double> m = new EnumMap<>(Fault.class);
        m.put(Fault.NONE, 0.35);
        for (Fault f : Fault.signal()) m.put(f, 0.65 / Fault.signal().size());
        return m;
    }

    /** The same oracle with fixed faults for some questions (tests that need one fault per question). */
    public OracleResponder withFaults(Map<String, Fault> faults) {
        return new OracleResponder(gold, faults, mix, dialect, dialects, seed).silent(silent);
    }

    /** The same oracle with the dialect of some questions given (a dataset over datasources of several engines). */
    public OracleResponder withDialects(Map<String, String> byQuestion) {
        return new OracleResponder(gold, assigned, mix, dialect, byQuestion, seed).silent(silent);
    }

    /**
     * The same oracle, answering some questions first with a read of a whole table ({@code SELECT * FROM table}): SQL
     * that runs and is wrong only in what it costs, so only a cost budget refuses it. A correction request gets the
     * question's own answer only when it carries the cost guard's evidence ({@link #costEvidenceIn}), else the same read
     * again. Call it after {@link #withFaults} and {@link #withDialects}, which do not carry it over.
     */
    public OracleResponder withCostlyFirstAnswers(Map<String, String> tableByQuestion) {
        OracleResponder copy = new OracleResponder(gold, assigned, mix, dialect, dialects, seed).silent(silent);
        copy.costly.putAll(costly);
        copy.costly.putAll(tableByQuestion);
        return copy;
    }

    /**
     * The same oracle, wrong silently on a share of its first answers (issue 50): each candidate k of a question (the
     * generator's "Candidate k of n" line; none: candidate 1) answers, with probability {@code rate} drawn from the seed,
     * a {@linkplain Fault#SILENT_VARIANT silent variant} of the gold SQL that runs and returns another answer. Candidate 1
     * otherwise keeps its fault of the mix (and its repair); candidates 2 on otherwise answer the gold SQL (a classic
     * mistake of theirs would only fail and not vote). The same question and candidate always get the same answer, so
     * N = 1, 3, 5 see the same candidate 1. Corrections are answered as before.
     */
    public OracleResponder withSilentVariants(double rate) {
        if (rate < 0 || rate > 1) throw new IllegalArgumentException("rate must be in [0, 1], was " + rate);
        return copy().silent(new Silent(rate, silent.byQuestion()));
    }

    /** The same oracle, answering a silent variant for the given candidates (1-based) of the given questions (tests). */
    public OracleResponder withSilentCandidates(Map<String, Set<Integer>> byQuestion) {
        return copy().silent(new Silent(silent.rate(), Map.copyOf(byQuestion)));
    }

    private OracleResponder copy() {
        OracleResponder copy = new OracleResponder(gold, assigned, mix, dialect, dialects, seed);
        copy.costly.putAll(costly);
        copy.failing.putAll(failing);
        copy.failingRate = failingRate;
        return copy;
    }

    /**
     * The same oracle, with the given candidates (2 on) of the given questions answering first with a mistake the engine
     * refuses (a misspelt column where the gold SQL has one, else a syntax slip), and their corrections answered as a
     * question's are: the gold SQL only when the correction prompt carries that mistake's evidence. Call it after
     * {@link #withFaults} and {@link #withDialects}, which do not carry it over.
     */
    public OracleResponder withFailingCandidates(Map<String, Set<Integer>> byQuestion) {
        OracleResponder copy = copy().silent(silent);
        byQuestion.forEach((q, ks) -> copy.failing.put(q, Set.copyOf(ks)));
        return copy;
    }

    /**
     * The same oracle, with each candidate k ≥ 2 of each question answering first, with probability {@code rate} (drawn
     * from the seed per question and candidate, apart from the silent variants' draw), the mistake of
     * {@link #withFailingCandidates(Map)}; a candidate that answers a silent variant does not fail.
     */
    public OracleResponder withFailingCandidates(double rate) {
        if (rate < 0 || rate > 1) throw new IllegalArgumentException("rate must be in [0, 1], was " + rate);
        OracleResponder copy = copy().silent(silent);
        copy.failingRate = rate;
        return copy;
    }

    /** Whether candidate {@code k} (≥ 2) of a question answers a refused mistake first. */
    boolean failsFirst(String question, int k) {
        return k > 1 && (failing.getOrDefault(question, Set.of()).contains(k)
                || failingRate > 0 && uniform(~seed, question, k) < failingRate);
    }

    /** The mistake a failing candidate answers first (null when none of the question's can fail). */
    private Injection candidateMistake(String question) {
        if (failing.getOrDefault(question, Set.of()).isEmpty() && failingRate == 0) return null;
        return firstApplicable(question, List.of(Fault.WRONG_COLUMN, Fault.SYNTAX_SLIP, Fault.KEYWORD_TYPO));
    }

    /**
     * The silent variant candidate {@code k} of a question answers, or null when it answers otherwise (or no variant
     * applies to the gold SQL). Variants are tried from one that depends on the question and k, so two wrong
     * candidates of a question usually differ.
     */
    public String silentVariantFor(String question, int k) {
        boolean listed = silent.byQuestion().getOrDefault(question, Set.of()).contains(k);
        if (!listed && !(silent.rate() > 0 && uniform(seed, question, k) < silent.rate())) return null;
        String sql = goldOf(question);
        if (sql == null) return null;
        List<String> variants = SilentVariants.of(sql);
        if (variants.isEmpty()) return null;
        return variants.get(Math.floorMod(question.hashCode() + k - 1, variants.size()));
    }

    /**
     * A draw in [0, 1) for a question's candidate, independent across candidates: SplitMix64's finalizer over the seed,
     * the question and k (java.util.Random's first values for neighbouring seeds are close, which made every candidate of
     * a question silent together or not at all).
     */
    static double uniform(long seed, String question, int k) {
        long z = seed * 0x9E3779B97F4A7C15L + question.hashCode() * 0xBF58476D1CE4E5B9L + k * 0x94D049BB133111EBL;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        z = z ^ (z >>> 31);
        return (z >>> 11) * 0x1.0p-53;
    }

    /** The costly first answer for a question given to {@link #withCostlyFirstAnswers}. */
    public static String costlyAnswer(String table) {
        return "SELECT * FROM " + table;
    }

    /**
     * Whether {@code message} carries the evidence of a too-expensive read of {@code table}: the table's name and an
     * estimate ("estimates 56 rows"), outside the costly answer and the question, which hold the name trivially.
     */
    public static boolean costEvidenceIn(String message, String question, String table) {
        if (message == null) return false;
        String answer = costlyAnswer(table);
        String residue = remove(remove(remove(Questions.squash(message), Questions.squash(answer)), answer), Questions.squash(question))
                .toLowerCase(Locale.ROOT);
        return residue.contains(table.toLowerCase(Locale.ROOT)) && ESTIMATE.matcher(residue).find();
    }

    /** The dialect a question's mistakes and error texts are made for. */
    public String dialectOf(String question) {
        return dialects.getOrDefault(question, dialect);
    }

    public String goldFor(String question) {
        return gold.get(question);
    }

    /** The fault injected for a question (decided on its first request, or now). */
    public Injection injectionFor(String question) {
        return injections.computeIfAbsent(question, this::inject);
    }

    /** The question a prompt is about, if known. */
    public Optional<String> identify(String userMessage) {
        return Optional.ofNullable(index.identify(userMessage));
    }

    @Override
    public String respond(ChatCall call) {
        String question = index.identify(call.lastUser());
        if (question == null) return ScriptedResponder.UNKNOWN_QUESTION;
        if (call.lastUser().contains(COMPARE)) return compare(question, call);
        String table = costly.get(question);
        if (table != null && !(isCorrection(call.lastUser()) && costEvidenceIn(call.lastUser(), question, table))) {
            return format(costlyAnswer(table), call.jsonMode());
        }
        boolean correction0 = isCorrection(call.lastUser());
        Injection mistake = candidateMistake(question);
        if (!correction0) {
            Matcher k = CANDIDATE.matcher(call.lastUser());
            int candidate = k.find() ? Integer.parseInt(k.group(1)) : 1;
            String variant = silentVariantFor(question, candidate);
            if (variant != null) return format(variant, call.jsonMode());
            if (mistake != null && failsFirst(question, candidate)) {
                return format(mistake.faultyAnswer(), call.jsonMode());
            }
            if (candidate > 1) return format(injectionFor(question).goldSql(), call.jsonMode());
        } else if (mistake != null && Questions.squash(call.lastUser()).contains(Questions.squash(mistake.faultyAnswer()))) {
            // a failing candidate's correction: its own mistake's evidence decides, as a question's does
            return format(carriesEvidence(call.lastUser(), mistake) ? mistake.goldSql() : mistake.faultyAnswer(), call.jsonMode());
        }
        Injection injection = injectionFor(question);
        if (injection.fault() == Fault.NONE) return format(injection.goldSql(), call.jsonMode());
        boolean correction = isCorrection(call.lastUser());
        if (correction && carriesEvidence(call.lastUser(), injection)) return format(injection.goldSql(), call.jsonMode());
        return injection.answerIsSql() ? format(injection.faultyAnswer(), call.jsonMode()) : injection.faultyAnswer();
    }

    /** The generator's pairwise tie-break line (issue 50; its {@code PairwiseTieBreak.ASK}). */
    static final String COMPARE = "Compare candidate A and candidate B";
    private static final Pattern COMPARED_SQL = Pattern.compile("(?s)Candidate ([AB]):\\n```sql\\n(.*?)\\n```");

    /**
     * A pairwise comparison, decided as an oracle can: the candidate whose SQL is the question's gold SQL (spacing, case and
     * a trailing semicolon aside), else the first (A). Deterministic, so a test knows which candidate wins.
     */
    private String compare(String question, ChatCall call) {
        String gold = sameText(injectionFor(question).goldSql());
        Matcher m = COMPARED_SQL.matcher(call.lastUser());
        String a = null;
        String b = null;
        while (m.find()) {
            if (m.group(1).equals("A") && a == null) a = sameText(m.group(2));
            if (m.group(1).equals("B") && b == null) b = sameText(m.group(2));
        }
        boolean chooseB = gold.equals(b) && !gold.equals(a);
        String reason = chooseB ? "candidate B is the gold SQL" : gold.equals(a) ? "candidate A is the gold SQL" : "neither is the gold SQL: the first";
        if (!call.jsonMode()) return "CHOICE: " + (chooseB ? "B" : "A") + "\nREASON: " + reason;
        return JsonNodeFactory.instance.objectNode().put("choice", chooseB ? "B" : "A").put("reason", reason).toString();
    }

    private static String sameText(String sql) {
        String s = Questions.squash(sql);
        return s.endsWith(";") ? s.substring(0, s.length() - 1).strip() : s;
    }

    static boolean isCorrection(String user) {
        String u = user.toLowerCase(Locale.ROOT);
        return u.contains("regenerate") || u.contains("failed sql");
    }

    /**
     * Whether {@code message} (an engine's or the validator's error, a correction prompt) holds the evidence of
     * {@code injection} the way a correction prompt must: outside the faulty answer and the question.
     */
    public static boolean evidenceIn(String message, Injection injection) {
        return message != null && carriesEvidence(message, injection);
    }

    static boolean carriesEvidence(String user, Injection injection) {
        String squashed = Questions.squash(user);
        String residue = remove(remove(remove(squashed, Questions.squash(injection.faultyAnswer())), injection.faultyAnswer()),
                Questions.squash(injection.question())).toLowerCase(Locale.ROOT);
        return injection.evidence().stream().anyMatch(e -> residue.contains(e.toLowerCase(Locale.ROOT)));
    }

    private static String remove(String text, String part) {
        if (part == null || part.isBlank()) return text;
        return Pattern.compile(Pattern.quote(part.strip()), Pattern.CASE_INSENSITIVE).matcher(text).replaceAll(" ");
    }

    private static String format(String sql, boolean jsonMode) {
        if (!jsonMode) return "```sql\n" + sql + "\n```";
        try {
            return new ObjectMapper().writeValueAsString(JsonNodeFactory.instance.objectNode().put("sql", sql));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    // ------------------------------------------------------------------ fault injection

    private Injection inject(String question) {
        if (!gold.containsKey(question)) throw new IllegalArgumentException("no gold SQL for question: " + question);
        Fault fault = assigned.containsKey(question) ? assigned.get(question) : draw(question);
        Injection i = firstApplicable(question, List.of(fault, Fault.WRONG_COLUMN, Fault.SYNTAX_SLIP, Fault.KEYWORD_TYPO, Fault.PROSE));
        if (i == null) throw new IllegalStateException("unreachable: prose always applies");
        return i;
    }

    /** The first of {@code faults} that applies to the question's gold SQL, or null. */
    private Injection firstApplicable(String question, List<Fault> faults) {
        String sql = goldOf(question);
        for (Fault f : faults) {
            Injection i = tryInject(f, question, sql, dialectOf(question));
            if (i != null) return i;
        }
        return null;
    }

    /** The question's gold SQL without surrounding space and trailing semicolons; null when it has none. */
    private String goldOf(String question) {
        String sql = gold.get(question);
        if (sql == null) return null;
        sql = sql.strip();
        while (sql.endsWith(";")) sql = sql.substring(0, sql.length() - 1).strip();
        return sql;
    }

    private Fault draw(String question) {
        double total = mix.values().stream().mapToDouble(Double::doubleValue).sum();
        double x = new Random(seed ^ question.hashCode()).nextDouble() * total;
        for (Map.Entry<Fault, Double> e : mix.entrySet()) {
            x -= e.getValue();
            if (x < 0) return e.getKey();
        }
        return mix.keySet().iterator().next();
    }

    private Injection tryInject(Fault fault, String q, String sql, String dialect) {
        return switch (fault) {
            case NONE -> new Injection(Fault.NONE, q, sql, sql, null, null, null, List.of());
            case WRONG_COLUMN -> wrongColumn(q, sql, dialect);
            case WRONG_TABLE -> wrongTable(q, sql, dialect);
            case MISSING_GROUP_BY -> missingGroupBy(q, sql, dialect);
            case FOREIGN_FUNCTION -> foreignFunction(q, sql, dialect);
            case TYPE_MISMATCH -> typeMismatch(q, sql, dialect);
            case SYNTAX_SLIP -> syntaxSlip(q, sql, dialect);
            case KEYWORD_TYPO -> keywordTypo(q, sql, dialect);
            case WRITE_STATEMENT -> new Injection(Fault.WRITE_STATEMENT, q, sql, "CREATE TABLE tmp_answer AS " + sql,
                    "read_only_violation", "statement writes data (CREATE TABLE); only read-only queries are allowed",
                    "CREATE TABLE", List.of("create table"));
            case PROSE -> new Injection(Fault.PROSE, q, sql,
                    "To answer this you would look at the relevant table and count the matching rows.",
                    null, null, null, List.of("not a sql statement"));
            case FOREIGN_TOP -> foreignTop(q, sql, dialect);
            case FOREIGN_QUOTING -> foreignQuoting(q, sql, dialect);
            case FOREIGN_NULL_FUNCTION -> foreignNullFunction(q, sql, dialect);
            case FOREIGN_DATE_FUNCTION -> foreignDateFunction(q, sql, dialect);
            case FOREIGN_LIMIT_OFFSET -> foreignLimitOffset(q, sql, dialect);
            case AGGREGATE_IN_WHERE -> aggregateInWhere(q, sql, dialect);
            case WINDOW_IN_WHERE -> windowInWhere(q, sql, dialect);
            case SILENT_JOIN -> silentJoin(q, sql);
            case SILENT_VARIANT -> {
                List<String> variants = SilentVariants.of(sql);
                yield variants.isEmpty() ? null : new Injection(Fault.SILENT_VARIANT, q, sql,
                        variants.get(Math.floorMod(q.hashCode(), variants.size())), null, null, null, List.of("no evidence: it runs"));
            }
        };
    }

    private record Tok(String text, int start, int end) {}

    private static List<Tok> tokens(String sql) {
        List<Tok> out = new ArrayList<>();
        Matcher m = WORD.matcher(sql);
        while (m.find()) out.add(new Tok(m.group(), m.start(), m.end()));
        return out;
    }

    private static boolean isWord(String t) {
        return Character.isLetter(t.charAt(0)) || t.charAt(0) == '_';
    }

    private Injection wrongColumn(String q, String sql, String dialect) {
        Tok t = firstColumn(sql);
        if (t == null) return null;
        String wrong = t.text() + "_nm";
        String faulty = sql.substring(0, t.start()) + wrong + sql.substring(t.end());
        String message = switch (dialect) {
            case "duckdb" -> "Binder Error: Referenced column \"" + wrong + "\" not found in FROM clause!\nCandidate bindings: \"" + t.text() + "\"";
            case "sparksql", "spark" -> "[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column or function parameter with name `" + wrong
                    + "` cannot be resolved. Did you mean one of the following? [`" + t.text() + "`].; line 1 pos 7;";
            case "hive" -> "Error while compiling statement: FAILED: SemanticException [Error 10004]: Line 1:7 Invalid table alias or column reference '"
                    + wrong + "': (possible column names are: " + t.text() + ")";
            case "postgres" -> "ERROR: column \"" + wrong.toLowerCase(Locale.ROOT) + "\" does not exist";
            // ClickHouse 26.7 (chDB) in its own words, as for the other engines; "In scope <query>" left out
            case "clickhouse" -> "Code: 47. DB::Exception: Unknown expression identifier `" + wrong + "` in scope SELECT …. Maybe you meant: ['"
                    + t.text() + "']. (UNKNOWN_IDENTIFIER)";
            // Trino folds an unquoted name to lower case in its message
            default -> "line 1:8: Column '" + wrong.toLowerCase(Locale.ROOT) + "' cannot be resolved";
        };
        return new Injection(Fault.WRONG_COLUMN, q, sql, faulty, "column_not_found", message, wrong, List.of(wrong));
    }

    /** The first token that reads as a column name (not a keyword, function, table, alias or qualifier). */
    private static Tok firstColumn(String sql) {
        List<Tok> toks = tokens(sql);
        for (int i = 0; i < toks.size(); i++) {
            Tok t = toks.get(i);
            String lower = t.text().toLowerCase(Locale.ROOT);
            if (!isWord(t.text()) || KEYWORDS.contains(lower)) continue;
            String prev = i > 0 ? toks.get(i - 1).text().toLowerCase(Locale.ROOT) : "";
            String next = i + 1 < toks.size() ? toks.get(i + 1).text() : "";
            if (next.equals("(") || next.equals(".")) continue; // function name or table qualifier
            if (Set.of("from", "join", "as", "into", "table", "update").contains(prev)) continue; // table or alias
            if (!prev.isEmpty() && isWord(prev) && !KEYWORDS.contains(prev)) continue; // an alias after a table or column
            if (i + 1 < toks.size() && isWord(next) && !KEYWORDS.contains(next.toLowerCase(Locale.ROOT)) && !prev.equals(".")) {
                continue; // "t alias" pairs
            }
            return t;
        }
        return null;
    }

    private Injection wrongTable(String q, String sql, String dialect) {
        List<Tok> toks = tokens(sql);
        for (int i = 0; i + 1 < toks.size(); i++) {
            if (!toks.get(i).text().equalsIgnoreCase("from")) continue;
            int j = i + 1;
            while (j + 2 < toks.size() && toks.get(j + 1).text().equals(".")) j += 2; // catalog.schema.table: the last part
            Tok t = toks.get(j);
            if (!isWord(t.text()) || KEYWORDS.contains(t.text().toLowerCase(Locale.ROOT))) continue;
            String wrong = t.text() + "_tbl";
            String faulty = sql.substring(0, t.start()) + wrong + sql.substring(t.end());
            String message = switch (dialect) {
                case "duckdb" -> "Catalog Error: Table with name " + wrong + " does not exist!\nDid you mean \"" + t.text() + "\"?";
                case "sparksql", "spark" -> "[TABLE_OR_VIEW_NOT_FOUND] The table or view `" + wrong + "` cannot be found. Verify the spelling"
                        + " and correctness of the schema and catalog.; line 1 pos 14;";
                case "hive" -> "Error while compiling statement: FAILED: SemanticException [Error 10001]: Line 1:14 Table not found '" + wrong + "'";
                case "postgres" -> "ERROR: relation \"" + wrong.toLowerCase(Locale.ROOT) + "\" does not exist";
                case "clickhouse" -> "Code: 60. DB::Exception: Unknown table expression identifier '" + wrong + "' in scope SELECT …. Maybe you meant "
                        + t.text() + "?. (UNKNOWN_TABLE)";
                default -> "line 1:15: Table '" + wrong.toLowerCase(Locale.ROOT) + "' does not exist";
            };
            return new Injection(Fault.WRONG_TABLE, q, sql, faulty, "table_not_found", message, wrong, List.of(wrong));
        }
        return null;
    }

    private Injection missingGroupBy(String q, String sql, String dialect) {
        Matcher m = GROUP_BY.matcher(sql);
        if (!m.find()) return null;
        String list = m.group(1);
        String[] items = list.split(",");
        String first = items[0].strip();
        if (!first.matches("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)?")) return null;
        String column = first.contains(".") ? first.substring(first.indexOf('.') + 1) : first;
        String faulty;
        if (items.length == 1) {
            faulty = sql.substring(0, m.start()) + sql.substring(m.end());
        } else {
            String rest = list.substring(list.indexOf(',') + 1).strip();
            faulty = sql.substring(0, m.start(1)) + rest + sql.substring(m.end(1));
        }
        String message = switch (dialect) {
            case "duckdb" -> "Binder Error: column \"" + column + "\" must appear in the GROUP BY clause or must be part of an aggregate function.";
            // Spark names no column when the query has no GROUP BY left at all
            case "sparksql", "spark" -> items.length == 1
                    ? "[MISSING_GROUP_BY] The query does not include a GROUP BY clause. Add GROUP BY or turn it into the window functions using OVER clauses.; line 1 pos 0;"
                    : "[MISSING_AGGREGATION] The non-aggregating expression \"" + column
                    + "\" is based on columns which are not participating in the GROUP BY clause.";
            case "hive" -> "Error while compiling statement: FAILED: SemanticException [Error 10025]: Line 1:7 Expression not in GROUP BY key '" + column + "'";
            case "postgres" -> "ERROR: column \"" + column.toLowerCase(Locale.ROOT) + "\" must appear in the GROUP BY clause or be used in an aggregate function";
            case "clickhouse" -> "Code: 215. DB::Exception: Column '" + column + "' is not under aggregate function and not in GROUP BY keys. (NOT_AN_AGGREGATE)";
            default -> "line 1:8: '" + column + "' must be an aggregate expression or appear in GROUP BY clause";
        };
        return new Injection(Fault.MISSING_GROUP_BY, q, sql, faulty, "aggregation_error", message, column, List.of(column, "[missing_group_by]"));
    }

    private Injection foreignFunction(String q, String sql, String dialect) {
        Matcher m = Pattern.compile("(?i)^(\\s*(?:WITH\\b.*?\\)\\s*)?SELECT\\s+(?:DISTINCT\\s+)?)", Pattern.DOTALL).matcher(sql);
        if (!m.find()) return null;
        boolean duck = dialect.equals("duckdb");
        String fn = duck ? "format_datetime" : "strftime";
        String expr = duck ? "format_datetime(current_date, 'yyyy')" : "strftime(current_date, '%Y')";
        String faulty = m.group(1) + expr + " AS period_label, " + sql.substring(m.end(1));
        String message = switch (dialect) {
            case "duckdb" -> "Catalog Error: Scalar Function with name format_datetime does not exist!\nDid you mean \"format_type\"?";
            case "sparksql", "spark" -> "[UNRESOLVED_ROUTINE] Cannot resolve function `strftime` on search path [`system`.`builtin`, `system`.`session`, `spark_catalog`.`default`].; line 1 pos 7";
            case "hive" -> "Error while compiling statement: FAILED: SemanticException [Error 10011]: Invalid function strftime";
            case "postgres" -> "ERROR: function strftime(date, unknown) does not exist";
            case "clickhouse" -> "Code: 46. DB::Exception: Function with name `strftime` does not exist. In scope SELECT …. Maybe you meant: ['toTime']. (UNKNOWN_FUNCTION)";
            default -> "line 1:8: Function 'strftime' not registered";
        };
        return new Injection(Fault.FOREIGN_FUNCTION, q, sql, faulty, "unsupported_function", message, fn, List.of(fn));
    }

    /**
     * A value of the wrong type in an expression, in a form each engine refuses: {@code 'one' + 1} on DuckDB, Trino,
     * Presto and PostgreSQL; Spark and Hive read {@code 'one' + 1} as NULL without an error, so there a date compared
     * with a boolean. The evidence is each engine's own wording of the error.
     */
    private Injection typeMismatch(String q, String sql, String dialect) {
        Matcher m = Pattern.compile("(?i)^(\\s*(?:WITH\\b.*?\\)\\s*)?SELECT\\s+(?:DISTINCT\\s+)?)", Pattern.DOTALL).matcher(sql);
        if (!m.find()) return null;
        boolean hiveServer2 = dialect.equals("sparksql") || dialect.equals("spark") || dialect.equals("hive");
        String faulty = m.group(1) + (hiveServer2 ? "current_date > true" : "'one' + 1") + " AS score, " + sql.substring(m.end(1));
        String[] msgAndEvidence = switch (dialect) {
            // DuckDB 2.0's own words for 'one' + 1 (older versions said "No function matches the given name…")
            case "duckdb" -> new String[] {"Binder Error: Could not choose a best candidate function for the function call"
                    + " \"+(STRING_LITERAL, INTEGER_LITERAL)\". In order to select one, please add explicit type casts.", "best candidate function"};
            case "sparksql", "spark" -> new String[] {"[DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES] Cannot resolve \"(current_date() > true)\" due to data type"
                    + " mismatch: the left and right operands of the binary operator have incompatible types (\"DATE\" and \"BOOLEAN\").", "datatype_mismatch"};
            case "hive" -> new String[] {"Error while compiling statement: FAILED: SemanticException [Error 10014]: Line 1:7 Wrong arguments 'true':"
                    + " Casting DATE/TIMESTAMP to NUMERIC is prohibited (hive.strict.timestamp.conversion)", "wrong arguments"};
            case "postgres" -> new String[] {"ERROR: invalid input syntax for type integer: \"one\"", "invalid input syntax for type"};
            case "clickhouse" -> new String[] {"Code: 43. DB::Exception: Illegal types String and UInt8 of arguments of function plus: In scope"
                    + " SELECT 'one' + 1 AS score, …. (ILLEGAL_TYPE_OF_ARGUMENT)", "illegal types string and uint8"};
            default -> new String[] {"line 1:8: Cannot apply operator: varchar(3) + integer", "cannot apply operator"};
        };
        return new Injection(Fault.TYPE_MISMATCH, q, sql, faulty, "type_mismatch", msgAndEvidence[0], null,
                List.of(msgAndEvidence[1], "no function matches", "explicit type cast"));
    }

    /**
     * FROM misspelt FORM. Every engine but Hive reads {@code … col FORM t} as the alias FORM and stops at the table
     * after it ("syntax error at or near "t""): that token, quoted, is evidence too; Hive and sqloop's validator name FORM.
     */
    private Injection syntaxSlip(String q, String sql, String dialect) {
        Matcher m = Pattern.compile("(?i)\\sFROM\\s+(\"[^\"]+\"|[A-Za-z_][A-Za-z0-9_.]*|\\S)").matcher(sql);
        if (!m.find()) return null;
        String faulty = sql.substring(0, m.start() + 1) + "FORM" + sql.substring(m.start() + 5);
        String next = m.group(1);
        int at = faulty.indexOf(next, m.start() + 5); // where the engine stops: the token after FORM
        String message = switch (dialect) {
            case "duckdb" -> "Parser Error: syntax error at or near \"" + next + "\"";
            case "sparksql", "spark" -> "[PARSE_SYNTAX_ERROR] Syntax error at or near '" + next + "'.(line 1, pos " + at + ")";
            case "hive" -> "Error while compiling statement: FAILED: ParseException line 1:" + at + " missing EOF at '" + next + "' near 'FORM'";
            case "postgres" -> "ERROR: syntax error at or near \"" + next + "\"";
            case "clickhouse" -> "Code: 62. DB::Exception: Syntax error: failed at position " + (m.start() + 2) + " (FORM): FORM " + next
                    + ". Expected one of: token, Comma, FROM, PREWHERE, WHERE, GROUP BY, WITH, HAVING, WINDOW, QUALIFY, ORDER BY, LIMIT, OFFSET. (SYNTAX_ERROR)";
            default -> "line 1:" + (at + 1) + ": mismatched input '" + next + "'. Expecting: ',', 'EXCEPT', 'FETCH', 'FROM', 'GROUP', 'HAVING',"
                    + " 'INTERSECT', 'LIMIT', 'OFFSET', 'ORDER', 'UNION', 'WHERE', 'WINDOW', <EOF>";
        };
        String bare = next.replace("\"", "");
        return new Injection(Fault.SYNTAX_SLIP, q, sql, faulty, "syntax_error", message, "FORM",
                List.of("'form'", "\"form\"", "'" + bare + "'", "\"" + bare + "\""));
    }

    private Injection keywordTypo(String q, String sql, String dialect) {
        Matcher m = Pattern.compile("(?i)\\bSELECT\\b").matcher(sql);
        if (!m.find()) return null;
        String faulty = sql.substring(0, m.start()) + "SELEC" + sql.substring(m.end());
        String message = switch (dialect) {
            case "duckdb" -> "Parser Error: syntax error at or near \"SELEC\"";
            case "sparksql", "spark" -> "[PARSE_SYNTAX_ERROR] Syntax error at or near 'SELEC'.(line 1, pos " + m.start() + ")";
            case "hive" -> "Error while compiling statement: FAILED: ParseException line 1:" + m.start() + " cannot recognize input near 'SELEC'";
            case "postgres" -> "ERROR: syntax error at or near \"SELEC\"";
            // ClickHouse reads "SELEC count" as a name and stops at the bracket after it
            case "clickhouse" -> "Code: 62. DB::Exception: Syntax error: failed at position " + (faulty.indexOf('(', m.start()) + 1)
                    + " ((). (SYNTAX_ERROR)";
            default -> "line 1:" + (m.start() + 1) + ": mismatched input 'SELEC'. Expecting: 'ALTER', 'ANALYZE', 'CALL', 'SELECT', 'WITH', <query>";
        };
        return new Injection(Fault.KEYWORD_TYPO, q, sql, faulty, "syntax_error", message, "SELEC", List.of("'selec'", "\"selec\""));
    }

    // ------------------------------------------------------------------ issue 46's signal kinds (opt-in)

    private static final Pattern SELECT_HEAD = Pattern.compile("(?i)^(\\s*(?:WITH\\b.*?\\)\\s*)?SELECT\\s+(?:DISTINCT\\s+)?)", Pattern.DOTALL);
    private static final Pattern TRAILING_LIMIT = Pattern.compile("(?i)\\s+LIMIT\\s+(\\d+)\\s*$");

    private static boolean hiveLike(String dialect) {
        return dialect.equals("hive") || dialect.equals("sparksql") || dialect.equals("spark");
    }

    /** The name a dialect's messages use. */
    private static String displayName(String dialect) {
        return switch (dialect) {
            case "duckdb" -> "DuckDB";
            case "sparksql", "spark" -> "Spark SQL";
            case "hive" -> "Hive";
            case "postgres" -> "PostgreSQL";
            case "presto" -> "Presto";
            case "clickhouse" -> "ClickHouse";
            default -> "Trino";
        };
    }

    /** {@code SELECT TOP n …} for a gold ending in {@code LIMIT n}: the validator names TOP and this dialect's LIMIT. */
    private Injection foreignTop(String q, String sql, String dialect) {
        Matcher limit = TRAILING_LIMIT.matcher(sql);
        Matcher head = SELECT_HEAD.matcher(sql);
        if (!limit.find() || !head.find()) return null;
        String n = limit.group(1);
        String faulty = head.group(1) + "TOP " + n + " " + sql.substring(head.end(1), limit.start());
        String message = "SELECT TOP " + n + " is SQL Server's; " + displayName(dialect) + " writes LIMIT " + n + " at the end of the query";
        return new Injection(Fault.FOREIGN_TOP, q, sql, faulty, "syntax_error", message, "TOP", List.of("sql server", "limit " + n));
    }

    /**
     * A column quoted with MySQL's backticks, or where backticks are the dialect's own (Hive, Spark) with SQL Server's
     * brackets; every occurrence of that column, as a model that quotes does.
     */
    private Injection foreignQuoting(String q, String sql, String dialect) {
        Tok column = firstColumn(sql);
        if (column == null) return null;
        boolean brackets = hiveLike(dialect);
        String quoted = brackets ? "[" + column.text() + "]" : "`" + column.text() + "`";
        StringBuilder faulty = new StringBuilder();
        int from = 0;
        for (Tok t : tokens(sql)) {
            if (!t.text().equals(column.text())) continue;
            faulty.append(sql, from, t.start()).append(quoted);
            from = t.end();
        }
        faulty.append(sql.substring(from));
        String message = brackets
                ? "a bracketed name " + quoted + " is SQL Server's quoting; " + displayName(dialect) + " quotes a name with backticks: `" + column.text() + "`"
                : "backtick quotes (" + quoted + ") are MySQL's, Hive's and Spark's; " + displayName(dialect)
                + " quotes a name with double quotes: \"" + column.text() + "\"";
        return new Injection(Fault.FOREIGN_QUOTING, q, sql, faulty.toString(), "syntax_error", message, brackets ? "[" : "`",
                brackets ? List.of("sql server's quoting", "bracketed name") : List.of("backtick", "double quotes"));
    }

    /**
     * MySQL's {@code IFNULL} where the dialect lacks it (PostgreSQL, Trino, Hive), Oracle's {@code NVL} on DuckDB (which
     * has IFNULL), wrapped around the gold's first SUM/AVG (or replacing its first COALESCE) as models write it. Spark
     * has IFNULL, NVL and ISNULL: none is foreign there, so not made.
     */
    private Injection foreignNullFunction(String q, String sql, String dialect) {
        if (dialect.equals("sparksql") || dialect.equals("spark")) return null;
        String fn = dialect.equals("duckdb") ? "NVL" : "IFNULL";
        String faulty;
        Matcher coalesce = Pattern.compile("(?i)\\bCOALESCE\\s*\\(").matcher(sql);
        if (coalesce.find()) {
            faulty = sql.substring(0, coalesce.start()) + fn + "(" + sql.substring(coalesce.end());
        } else {
            Matcher agg = Pattern.compile("(?i)\\b(?:SUM|AVG)\\s*\\(").matcher(sql);
            if (!agg.find()) return null;
            int close = closingParen(sql, agg.end() - 1);
            if (close < 0) return null;
            faulty = sql.substring(0, agg.start()) + fn + "(" + sql.substring(agg.start(), close + 1) + ", 0)" + sql.substring(close + 1);
        }
        String name = fn.toLowerCase(Locale.ROOT);
        String message = "function " + name + "() is not " + displayName(dialect) + "'s (it is another engine's): "
                + displayName(dialect) + " writes COALESCE(a, b)";
        return new Injection(Fault.FOREIGN_NULL_FUNCTION, q, sql, faulty, "unsupported_function", message, name, List.of("coalesce"));
    }

    /**
     * A period label in MySQL's {@code DATE_FORMAT} where the dialect lacks it (PostgreSQL, DuckDB), else SQL Server's
     * {@code GETDATE()} (Trino, Spark and Hive have DATE_FORMAT). The evidence is this dialect's equivalent.
     */
    private Injection foreignDateFunction(String q, String sql, String dialect) {
        Matcher head = SELECT_HEAD.matcher(sql);
        if (!head.find()) return null;
        boolean dateFormat = dialect.equals("postgres") || dialect.equals("duckdb");
        String expr = dateFormat ? "DATE_FORMAT(current_date, '%Y-%m')" : "GETDATE()";
        String faulty = head.group(1) + expr + " AS period_label, " + sql.substring(head.end(1));
        String equivalent = dateFormat ? (dialect.equals("postgres") ? "to_char" : "strftime") : "current_timestamp";
        String fn = dateFormat ? "date_format" : "getdate";
        String message = "function " + fn + "() is not " + displayName(dialect) + "'s (it is another engine's): "
                + displayName(dialect) + " writes " + equivalent;
        return new Injection(Fault.FOREIGN_DATE_FUNCTION, q, sql, faulty, "unsupported_function", message, fn, List.of(equivalent));
    }

    /** MySQL's {@code LIMIT 0, n} for a gold ending in {@code LIMIT n}; Hive writes it so itself, so not made there. */
    private Injection foreignLimitOffset(String q, String sql, String dialect) {
        if (dialect.equals("hive")) return null;
        Matcher limit = TRAILING_LIMIT.matcher(sql);
        if (!limit.find()) return null;
        String n = limit.group(1);
        String faulty = sql.substring(0, limit.start()) + " LIMIT 0, " + n;
        boolean trino = dialect.equals("trino") || dialect.equals("presto");
        String message = "LIMIT 0, " + n + " (offset, count) is MySQL's; " + displayName(dialect) + " writes "
                + (trino ? "OFFSET 0 LIMIT " + n : "LIMIT " + n + " OFFSET 0");
        return new Injection(Fault.FOREIGN_LIMIT_OFFSET, q, sql, faulty, "syntax_error", message, "LIMIT", List.of("mysql", "offset"));
    }

    private static final Pattern HAVING = Pattern.compile(
            "(?i)\\s+HAVING\\s+(.+?)(?=\\s+(?:ORDER|LIMIT|QUALIFY|WINDOW|UNION)\\b|$)", Pattern.DOTALL);
    private static final Pattern GROUP_BY_KEYWORD = Pattern.compile("(?i)\\s+GROUP\\s+BY\\b");
    private static final Pattern WHERE_KEYWORD = Pattern.compile("(?i)\\bWHERE\\b");

    /**
     * The gold's HAVING condition moved into WHERE (an outside run's commonest aggregate misuse), or on a gold that groups
     * without HAVING, {@code COUNT(*) > 0} in WHERE. The evidence is the advice that fits: HAVING.
     */
    private Injection aggregateInWhere(String q, String sql, String dialect) {
        if (blocks(sql) != 1) return null; // one block: the clauses found are the query's own
        Matcher group = GROUP_BY_KEYWORD.matcher(sql);
        if (!group.find()) return null;
        Matcher having = HAVING.matcher(sql);
        String condition;
        String rest;
        if (having.find(group.end())) {
            condition = having.group(1).strip();
            rest = sql.substring(0, having.start()) + sql.substring(having.end());
        } else {
            condition = "COUNT(*) > 0";
            rest = sql;
        }
        String before = rest.substring(0, group.start());
        String faulty = (WHERE_KEYWORD.matcher(before).find() ? before + " AND " + condition : before + " WHERE " + condition)
                + rest.substring(group.start());
        String message = "aggregate function in WHERE: " + condition + " — WHERE filters rows before they are grouped; move the"
                + " condition to HAVING after GROUP BY, or compute the aggregate in a subquery and filter outside it";
        return new Injection(Fault.AGGREGATE_IN_WHERE, q, sql, faulty, "aggregation_error", message, null, List.of("having"));
    }

    private static final Pattern ORDER_LIMIT = Pattern.compile("(?i)\\s+ORDER\\s+BY\\s+(.+?)\\s+LIMIT\\s+(\\d+)\\s*$", Pattern.DOTALL);

    /** The gold's {@code ORDER BY k LIMIT n} written as a row number filtered in WHERE (no GROUP BY: one block's rows). */
    private Injection windowInWhere(String q, String sql, String dialect) {
        if (blocks(sql) != 1 || GROUP_BY_KEYWORD.matcher(sql).find()) return null;
        Matcher m = ORDER_LIMIT.matcher(sql);
        if (!m.find()) return null;
        String before = sql.substring(0, m.start());
        String filter = "ROW_NUMBER() OVER (ORDER BY " + m.group(1).strip() + ") <= " + m.group(2);
        String faulty = WHERE_KEYWORD.matcher(before).find() ? before + " AND " + filter : before + " WHERE " + filter;
        String message = "window function in WHERE: row_number() OVER (…) — WHERE chooses rows before window functions see them;"
                + " compute it in a subquery or CTE and filter on it in the outer query";
        return new Injection(Fault.WINDOW_IN_WHERE, q, sql, faulty, "aggregation_error", message, "row_number",
                List.of("window function"));
    }

    private static final Pattern JOIN_ON = Pattern.compile(
            "(?i)\\bON\\s+([A-Za-z_][A-Za-z0-9_]*)\\.([A-Za-z_][A-Za-z0-9_]*)\\s*=\\s*([A-Za-z_][A-Za-z0-9_]*)\\.([A-Za-z_][A-Za-z0-9_]*)");

    private static boolean idLike(String column) {
        return column.toLowerCase(Locale.ROOT).endsWith("id");
    }

    /**
     * A join on the wrong key: in the first {@code ON a.xId = b.yId}, the id column of one side replaced by a non-id column
     * of the same alias that the SQL uses elsewhere ({@code c.sbCustName = t.sbTxCustId}). Of the same type on the defog
     * schemas (text ids), so every engine runs it and returns no rows; only an empty-answer finding names it. The
     * evidence is that finding: the query returned no rows.
     */
    static Injection silentJoin(String q, String sql) {
        Matcher on = JOIN_ON.matcher(sql);
        if (!on.find() || !idLike(on.group(2)) || !idLike(on.group(4))) return null;
        for (int side : new int[] {1, 3}) {
            String alias = on.group(side);
            Matcher used = Pattern.compile("(?i)\\b" + Pattern.quote(alias) + "\\.([A-Za-z_][A-Za-z0-9_]*)").matcher(sql);
            while (used.find()) {
                String column = used.group(1);
                if (idLike(column)) continue;
                int start = on.start(side + 1);
                String faulty = sql.substring(0, start) + column + sql.substring(on.end(side + 1));
                String other = side == 1 ? on.group(3) + "." + on.group(4) : on.group(1) + "." + on.group(2);
                String message = "the query returned no rows; the join compares " + alias + "." + column + " with " + other;
                return new Injection(Fault.SILENT_JOIN, q, sql, faulty, "join_error", message, alias + "." + column,
                        List.of("returned no rows"));
            }
        }
        return null;
    }

    private static int blocks(String sql) {
        Matcher m = Pattern.compile("(?i)\\bSELECT\\b").matcher(sql);
        int n = 0;
        while (m.find()) n++;
        return n;
    }

    /** The index of the parenthesis closing the one at {@code open}, or -1. */
    private static int closingParen(String sql, int open) {
        int depth = 0;
        for (int i = open; i < sql.length(); i++) {
            char c = sql.charAt(i);
            if (c == '(') depth++;
            else if (c == ')' && --depth == 0) return i;
        }
        return -1;
    }
}
