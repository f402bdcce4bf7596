package dev.sqloop.validator;

import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.message.Issue;
import dev.sqloop.common.message.NlConstraints;
import dev.sqloop.validator.check.AggregationCheck;
import dev.sqloop.validator.check.ConstraintCheck;
import dev.sqloop.validator.check.ForeignConstructs;
import dev.sqloop.validator.check.SchemaCheck;
import dev.sqloop.parse.ClickHouseAstParser;
import dev.sqloop.parse.DialectParsers;
import dev.sqloop.parse.ParsedQuery;
import dev.sqloop.parse.SqlRejection;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Static validation of one SQL text for one datasource, in order: parse with the dialect's parser (one
 * read-only query, or a syntax / read-only issue and nothing else), then schema and NL-constraint checks.
 * Pure and thread-safe. Errors come first, then hints ({@link Issue#hint()}); the SQL may be executed when
 * {@link #hasErrors} is false (see README.md: errors vs hints).
 */
public final class StaticValidator {
    private static final Logger LOG = LoggerFactory.getLogger(StaticValidator.class);

    private StaticValidator() {}

    /** Whether any issue fails the query (a hint never does). */
    public static boolean hasErrors(List<Issue> issues) {
        return issues.stream().anyMatch(Issue::error);
    }

    private static final java.util.regex.Pattern TOKEN = java.util.regex.Pattern.compile(
            "(?:unexpected token:?|encountered:?|mismatched input|extraneous input|no viable alternative at input|at or near)"
                    + "\\s*(?:<[^>]*>\\s*/?\\s*)?(\"[^\"]*\"|'[^']*')",
            java.util.regex.Pattern.CASE_INSENSITIVE);
    private static final List<String> CLAUSE_KEYWORDS = List.of("select", "from", "where", "group", "order", "having",
            "limit", "join", "union", "inner", "left", "distinct", "between");
    private static final java.util.regex.Pattern WORDS = java.util.regex.Pattern.compile(
            "'(?:[^']|'')*'|\"[^\"]*\"|`[^`]*`|--[^\\n]*|/\\*.*?\\*/|([A-Za-z_][A-Za-z0-9_]*)", java.util.regex.Pattern.DOTALL);

    record Slip(String token, String keyword, int line, int column) {}

    /** The first bare word one edit away from a clause keyword that is no table or column name of the datasource. */
    static Slip misspeltKeyword(String sql, ValidationTarget target) {
        java.util.regex.Matcher m = WORDS.matcher(sql);
        java.util.Set<String> names = new java.util.HashSet<>();
        for (var t : target.catalog().tables()) {
            names.add(t.name());
            names.addAll(t.columns().keySet());
        }
        while (m.find()) {
            String w = m.group(1);
            if (w == null || w.length() < 4) continue;
            String lower = w.toLowerCase(java.util.Locale.ROOT);
            if (CLAUSE_KEYWORDS.contains(lower) || names.contains(lower)) continue;
            for (String k : CLAUSE_KEYWORDS) {
                if (oneEdit(lower, k)) {
                    int line = 1;
                    int lineStart = 0;
                    for (int i = 0; i < m.start(1); i++) {
                        if (sql.charAt(i) == '\n') {
                            line++;
                            lineStart = i + 1;
                        }
                    }
                    return new Slip(w, k, line, m.start(1) - lineStart + 1);
                }
            }
        }
        return null;
    }

    /** One substitution, insertion, deletion or adjacent transposition apart (and not equal). */
    private static boolean oneEdit(String a, String b) {
        if (a.equals(b) || Math.abs(a.length() - b.length()) > 1) return false;
        if (a.length() == b.length()) {
            int first = -1;
            int diffs = 0;
            for (int i = 0; i < a.length(); i++) {
                if (a.charAt(i) != b.charAt(i)) {
                    if (first < 0) first = i;
                    diffs++;
                }
            }
            if (diffs == 1) return true;
            return diffs == 2 && first + 1 < a.length() && a.charAt(first) == b.charAt(first + 1) && a.charAt(first + 1) == b.charAt(first);
        }
        String shorter = a.length() < b.length() ? a : b;
        String longer = a.length() < b.length() ? b : a;
        int i = 0;
        while (i < shorter.length() && shorter.charAt(i) == longer.charAt(i)) i++;
        return shorter.substring(i).equals(longer.substring(i + 1));
    }

    /** The token a parser's syntax message names ({@code Encountered unexpected token: "FORM"}, {@code mismatched input 'FORM'}), or null. */
    static String offendingToken(String message) {
        java.util.regex.Matcher m = TOKEN.matcher(message == null ? "" : message);
        if (!m.find()) return null;
        String quoted = m.group(1);
        String token = quoted.substring(1, quoted.length() - 1).strip();
        return token.isEmpty() || token.equals("<EOF>") ? null : token;
    }

    /**
     * Aggregation issues the schema errors already explain: a column that does not exist, or any column when a table
     * does not, cannot be judged for grouping. Reporting both would put a second, invented error in the correction
     * prompt beside the real one.
     */
    private static List<Issue> unjudged(List<Issue> aggregation, List<Issue> schema) {
        if (schema.stream().anyMatch(i -> i.error() && i.category() == ErrorCategory.TABLE_NOT_FOUND)) return List.of();
        java.util.Set<String> missing = new java.util.HashSet<>();
        for (Issue i : schema) {
            if (i.error() && i.category() == ErrorCategory.COLUMN_NOT_FOUND && i.identifier() != null) missing.add(lastPart(i.identifier()));
        }
        return aggregation.stream().filter(i -> i.identifier() == null || !missing.contains(lastPart(i.identifier()))).toList();
    }

    private static String lastPart(String identifier) {
        return identifier.substring(identifier.lastIndexOf('.') + 1).replace("\"", "").toLowerCase(java.util.Locale.ROOT);
    }

    /**
     * The datasource engine's parse of a query the dialect's Java parser refused as a syntax error. When the engine
     * cannot be asked, the Java parser's refusal stands, with the reason (fail closed).
     */
    private static ParsedQuery byEngine(String sql, ValidationTarget target, SqlRejection javaParser) throws SqlRejection {
        try {
            return target.engineParser().parse(sql);
        } catch (RuntimeException e) {
            LOG.warn("{}'s own parser is not available: {}", target.dialect().wireName(), e.toString());
            throw new SqlRejection(javaParser.category(), javaParser.getMessage() + " (" + target.dialect().displayName()
                    + "'s own parser, which reads what this one cannot, was not available: " + e.getMessage() + ")",
                    javaParser.identifier());
        }
    }

    /** The engine's parse where JSqlParser's would be wrong; an engine that cannot be asked refuses the query (fail closed). */
    private static ParsedQuery engineOnly(String sql, ValidationTarget target) throws SqlRejection {
        try {
            return target.engineParser().parse(sql);
        } catch (RuntimeException e) {
            LOG.warn("{}'s own parser is not available: {}", target.dialect().wireName(), e.toString());
            throw new SqlRejection(ErrorCategory.UNKNOWN, "this query needs " + target.dialect().displayName() + "'s own parser"
                    + " (lambdas, ARRAY JOIN), which was not available: " + e.getMessage(), null);
        }
    }

    public static List<Issue> validate(String sql, ValidationTarget target, NlConstraints constraints) {
        // another dialect's syntax (TOP n, backticks, LIMIT a, b, ::) named with this one's equivalent, in place of a
        // parser's generic "syntax error at or near" or an engine round trip; a read-only violation still comes first
        List<Issue> foreign = sql == null ? List.of() : ForeignConstructs.syntax(sql, target.dialect());
        ParsedQuery parsed;
        try {
            boolean byEngine = false;
            try {
                if (target.engineParser() != null && ClickHouseAstParser.needsEngineParser(sql)) {
                    // lambdas and ARRAY JOIN: JSqlParser accepts them into a wrong tree, so the engine parses them
                    byEngine = true;
                    parsed = engineOnly(sql, target);
                } else {
                    parsed = DialectParsers.forDialect(target.dialect()).parse(sql);
                }
            } catch (SqlRejection r) {
                // ClickHouse SQL JSqlParser cannot read (WITH 1 AS x, t.1, LEFT ANTI JOIN, WITH TOTALS, SAMPLE 1/2 OFFSET …):
                // the engine's own parser decides, under the same policies; a read-only refusal is never retried
                if (byEngine || r.category() != ErrorCategory.SYNTAX_ERROR || target.engineParser() == null) throw r;
                parsed = byEngine(sql, target, r);
                byEngine = true;
            }
            List<Issue> found = new ArrayList<>(SchemaCheck.check(parsed, target.catalog(), target.extraFunctions()));
            found.addAll(unjudged(AggregationCheck.check(parsed), found));
            // the engine's tree does not say which clause holds ORDER BY or LIMIT: no constraint hints from it
            if (!byEngine) found.addAll(ConstraintCheck.check(constraints, parsed));
            // Errors first: the first issue decides the repair strategy; hints only ride along.
            List<Issue> issues = new ArrayList<>(foreign);
            issues.addAll(found.stream().filter(Issue::error).toList());
            issues.addAll(found.stream().filter(Issue::hint).toList());
            return List.copyOf(issues);
        } catch (SqlRejection r) {
            if (r.category() == ErrorCategory.SYNTAX_ERROR && !foreign.isEmpty()) return foreign;
            String identifier = r.identifier();
            String message = r.getMessage();
            if (r.category() == ErrorCategory.SYNTAX_ERROR && identifier == null) {
                // A misspelt clause keyword (FORM, WHRE) often parses as an alias, and the parser then stops at the
                // next word: name the slip itself, with its position, beside the parser's own message.
                Slip slip = misspeltKeyword(sql, target);
                if (slip != null) {
                    identifier = slip.token();
                    message = "'" + slip.token() + "' at line " + slip.line() + ", column " + slip.column()
                            + " looks like a misspelt " + slip.keyword().toUpperCase(java.util.Locale.ROOT) + " (parser: " + message + ")";
                } else {
                    identifier = offendingToken(message);
                }
            }
            return List.of(new Issue(SchemaCheck.STAGE, r.category(), message, identifier, List.of()));
        } catch (RuntimeException | StackOverflowError e) {
            // A parser or walker defect on an unusual tree must not let unchecked SQL through to execute.
            LOG.warn("static validation failed on a {} query: {}", target.dialect().wireName(), e.toString());
            return List.of(Issue.of(SchemaCheck.STAGE, ErrorCategory.UNKNOWN,
                    "the validator could not analyse this query (" + e.getClass().getSimpleName() + "); write it more simply"));
        }
    }
}
