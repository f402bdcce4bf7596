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

    /**
     * @param gold question → gold SQL
     * @param mix fault → weight; questions without an assigned fault draw one
     * @param dialect {@code trino}, {@code presto}, {@code postgres}, {@code duckdb}, {@code sparksql} or {@code hive}: the
     *                engine the questions run on, which shapes the mistakes, the error texts and the evidence
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

    /** Every fault except NONE with equal weight. */
    public static Map<Fault, Double> uniformMix() {
        Map<Fault, Double> m = new EnumMap<>(Fault.class);
        for (Fault f : Fault.values()) if (f != Fault.NONE) m.put(f, 1.0);
        return m;
    }

    /** The same oracle with fixed faults for some questions (tests that need one fault per question). */
    public OracleResponder withFaults(Map<String, Fault> faults) {
        return new OracleResponder(gold, faults, mix, dialect, dialects, seed);
    }

    /** The same oracle with the dialect of some questions given (a dataset over datasources of several engines). */
    public OracleResponder withDialects(Map<String, String> byQuestion) {
        return new OracleResponder(gold, assigned, mix, dialect, byQuestion, seed);
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
        Injection injection = injectionFor(question);
        if (injection.fault() == Fault.NONE) return format(injection.goldSql(), call.jsonMode());
        boolean correction = isCorrection(call.lastUser());
        if (correction && carriesEvidence(call.lastUser(), injection)) return format(injection.goldSql(), call.jsonMode());
        return injection.answerIsSql() ? format(injection.faultyAnswer(), call.jsonMode()) : injection.faultyAnswer();
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
        String sql = gold.get(question);
        if (sql == null) throw new IllegalArgumentException("no gold SQL for question: " + question);
        sql = sql.strip();
        while (sql.endsWith(";")) sql = sql.substring(0, sql.length() - 1).strip();
        Fault fault = assigned.containsKey(question) ? assigned.get(question) : draw(question);
        List<Fault> order = new ArrayList<>(List.of(fault, Fault.WRONG_COLUMN, Fault.SYNTAX_SLIP, Fault.KEYWORD_TYPO, Fault.PROSE));
        for (Fault f : order) {
            Injection i = tryInject(f, question, sql, dialectOf(question));
            if (i != null) return i;
        }
        throw new IllegalStateException("unreachable: prose always applies");
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
            String wrong = t.text() + "_nm";
            String faulty = sql.substring(0, t.start()) + wrong + sql.substring(t.end());
            String message = switch (dialect) {
                case "duckdb" -> "Binder Error: Referenced column \"" + wrong + "\" not found in FROM clause!\nCandidate bindings: \"" + t.text() + "\"";
                case "sparksql", "spark" -> "[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column or function parameter with name `" + wrong
                        + "` cannot be resolved. Did you mean one of the following? [`" + t.text() + "`].; line 1 pos 7;";
                case "hive" -> "Error while compiling statement: FAILED: SemanticException [Error 10004]: Line 1:7 Invalid table alias or column reference '"
                        + wrong + "': (possible column names are: " + t.text() + ")";
                case "postgres" -> "ERROR: column \"" + wrong.toLowerCase(Locale.ROOT) + "\" does not exist";
                // Trino folds an unquoted name to lower case in its message
                default -> "line 1:8: Column '" + wrong.toLowerCase(Locale.ROOT) + "' cannot be resolved";
            };
            return new Injection(Fault.WRONG_COLUMN, q, sql, faulty, "column_not_found", message, wrong, List.of(wrong));
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
            default -> "line 1:" + (m.start() + 1) + ": mismatched input 'SELEC'. Expecting: 'ALTER', 'ANALYZE', 'CALL', 'SELECT', 'WITH', <query>";
        };
        return new Injection(Fault.KEYWORD_TYPO, q, sql, faulty, "syntax_error", message, "SELEC", List.of("'selec'", "\"selec\""));
    }
}
