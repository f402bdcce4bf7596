package dev.sqloop.common.message;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * An answer that ran and holds nothing: no rows, or one row of NULLs (an aggregate over no rows), for a question that asks
 * for rows — a list, a count, a top-n; not a yes/no question, where nothing may be the answer. Issue 46: a join on the
 * wrong key ran, returned 0 rows where the gold returns 4, and ended {@code first_attempt_success} with no warning. The
 * executor reports it as a hint on the result and in the trace; auto-capture never stores such an answer.
 */
public final class EmptyAnswer {
    /** How every empty-answer finding begins: what the review console, capture and the repair's strategy recognise. */
    public static final String NO_ROWS = "the query returned no rows";
    public static final String NULL_ROW = "the query returned only NULLs";

    private static final Set<String> YES_NO = Set.of("is", "are", "was", "were", "does", "do", "did", "has", "have", "had",
            "can", "could", "will", "would", "should", "isn't", "aren't", "doesn't");
    private static final Pattern FIRST_WORD = Pattern.compile("^[^A-Za-z]*([A-Za-z']+)");

    private EmptyAnswer() {}

    /** No rows, or exactly one row whose every value is NULL (as far as the preview shows it). */
    public static boolean empty(Execution e) {
        if (e == null) return false;
        if (e.rowCount() == 0) return true;
        return e.rowCount() == 1 && e.preview().size() == 1 && !e.preview().getFirst().isEmpty()
                && e.preview().getFirst().stream().allMatch(Objects::isNull);
    }

    /** Whether the question asks for rows: anything but a yes/no question ("Is there…", "Does … have …"). */
    public static boolean asksForRows(String question) {
        if (question == null) return false;
        var m = FIRST_WORD.matcher(question.strip());
        return m.find() && !YES_NO.contains(m.group(1).toLowerCase(Locale.ROOT));
    }

    /** The opening of the finding for this execution: {@link #NO_ROWS} or {@link #NULL_ROW}. */
    public static String opening(Execution e) {
        return e != null && e.rowCount() > 0 ? NULL_ROW : NO_ROWS;
    }

    /** Whether an issue is an empty-answer finding. */
    public static boolean isFinding(Issue issue) {
        return issue != null && (issue.message().startsWith(NO_ROWS) || issue.message().startsWith(NULL_ROW));
    }

    /** Whether any of {@code issues} is an empty-answer finding. */
    public static boolean anyFinding(List<Issue> issues) {
        return issues != null && issues.stream().anyMatch(EmptyAnswer::isFinding);
    }
}
