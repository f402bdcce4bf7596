package dev.sqloop.executor;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.message.EmptyAnswer;
import dev.sqloop.common.message.Execution;
import dev.sqloop.common.message.Issue;
import dev.sqloop.common.message.LinkedSchema;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.parse.DialectParsers;
import dev.sqloop.parse.ObjectName;
import dev.sqloop.parse.ParsedQuery;
import dev.sqloop.parse.QueryScope;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * What the executor says of an empty answer ({@link EmptyAnswer}): that it is empty, and when the parse tree shows it, the
 * likely cause — a join that compares an id column with a column that is not one ({@code c.sbCustName = t.sbTxCustId}),
 * or two columns of different types as the linked schema lists them. Otherwise it names where to look (join keys, filter
 * values). A hint on a success; the evidence of the one repair round a datasource may ask for.
 */
public final class EmptyAnswerFinding {
    /** Words ending in "id" that name no identifier. */
    private static final Set<String> NOT_IDS = Set.of("paid", "valid", "void", "grid", "bid", "liquid", "rapid", "solid", "avoid", "humid");

    private EmptyAnswerFinding() {}

    /** The finding for an attempt's execution, as a hint; empty when the answer holds something or the question asks for none. */
    public static Optional<Issue> of(QuestionTask task, Dialect dialect, Execution execution) {
        if (!EmptyAnswer.empty(execution) || !EmptyAnswer.asksForRows(task.question())) return Optional.empty();
        Optional<String[]> join = suspiciousJoin(task.sql(), dialect, task.linkedSchema());
        String message = EmptyAnswer.opening(execution) + " for a question that asks for rows; "
                + join.map(j -> j[0]).orElse("check each join's keys and each filter's values against the data");
        return Optional.of(Issue.hint(ExecuteStage.NAME, join.isPresent() ? ErrorCategory.JOIN_ERROR : ErrorCategory.CONSTRAINT_VIOLATION,
                message, join.map(j -> j[1]).orElse(null)));
    }

    /** The same finding as an error: what a repair round is made for. */
    static Issue asError(Issue hint) {
        return new Issue(hint.stage(), hint.category(), hint.message(), hint.identifier(), hint.candidates(), false);
    }

    static boolean idLike(String column) {
        String c = column.toLowerCase(Locale.ROOT);
        return (c.endsWith("id") && !NOT_IDS.contains(c)) || c.endsWith("_key");
    }

    /** {message, the suspicious column} for the first join key pair that cannot be a foreign key meeting its key. */
    static Optional<String[]> suspiciousJoin(String sql, Dialect dialect, LinkedSchema schema) {
        ParsedQuery parsed;
        try {
            parsed = DialectParsers.forDialect(dialect).parse(sql);
        } catch (Exception e) {
            return Optional.empty(); // it ran, so the engine read it; a parser that cannot has nothing to say here
        }
        for (QueryScope scope : parsed.scopes()) {
            for (QueryScope.JoinKey key : scope.joinKeys()) {
                boolean leftId = idLike(key.left().last());
                boolean rightId = idLike(key.right().last());
                if (leftId != rightId) {
                    ObjectName id = leftId ? key.left() : key.right();
                    ObjectName other = leftId ? key.right() : key.left();
                    return Optional.of(new String[] {"the join compares id column " + id.text() + " with " + other.text()
                            + ", which is not an id column: join each id to the id it refers to", other.text()});
                }
                String leftType = type(key.left(), scope, schema);
                String rightType = type(key.right(), scope, schema);
                if (leftType != null && rightType != null && family(leftType) != family(rightType)) {
                    return Optional.of(new String[] {"the join compares " + key.left().text() + " (" + leftType + ") with "
                            + key.right().text() + " (" + rightType + "), columns of different types", key.right().text()});
                }
            }
        }
        return Optional.empty();
    }

    /** A column's type from the linked schema, through the alias or table its qualifier names in {@code scope}. */
    private static String type(ObjectName column, QueryScope scope, LinkedSchema schema) {
        if (schema == null || column.size() < 2) return null;
        String qualifier = column.prefix().last();
        for (QueryScope.Source s : scope.sources()) {
            if (s.table() == null || !qualifier.equals(s.exposedName())) continue;
            for (LinkedSchema.Table t : schema.tables()) {
                String name = t.name().toLowerCase(Locale.ROOT);
                if (!name.equals(s.table().last()) && !name.endsWith("." + s.table().last())) continue;
                for (LinkedSchema.Column c : t.columns()) {
                    if (c.name().equalsIgnoreCase(column.last())) return c.type();
                }
            }
        }
        return null;
    }

    private enum Family { NUMBER, TEXT, TIME, OTHER }

    private static Family family(String type) {
        String t = type.toLowerCase(Locale.ROOT);
        if (t.matches(".*(int|numeric|decimal|double|float|real|number).*")) return Family.NUMBER;
        if (t.matches(".*(char|text|string).*")) return Family.TEXT;
        if (t.matches(".*(date|time).*")) return Family.TIME;
        return Family.OTHER;
    }
}
