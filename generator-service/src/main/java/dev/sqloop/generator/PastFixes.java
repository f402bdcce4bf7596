package dev.sqloop.generator;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.message.Issue;
import java.util.List;

/**
 * Similar past fixes for the repair prompt: up to {@link #MAX} error→fix pairs whose error resembles this one
 * (from the few-shot service's error→fix memory). The prompt works without them; {@link #NONE} is the default.
 */
@FunctionalInterface
public interface PastFixes {
    int MAX = 3;

    PastFixes NONE = (datasource, dialect, issue) -> List.of();

    List<PastFix> similar(String datasource, Dialect dialect, Issue issue);

    /** An error seen before, the SQL that caused it and the SQL that fixed it. */
    record PastFix(String error, String failedSql, String fixedSql) {}
}
