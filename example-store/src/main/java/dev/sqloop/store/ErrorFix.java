package dev.sqloop.store;

import java.time.Instant;
import java.util.Objects;

/**
 * An error seen on a failed attempt and the SQL that fixed it, kept for the repair worker's "similar past fixes".
 * Embedded by {@code errorText}.
 */
public record ErrorFix(String datasource, String errorText, String category, String failedSql, String fixedSql,
                       String dialect, String question, Instant createdAt) {
    public ErrorFix {
        Objects.requireNonNull(datasource, "datasource");
        Objects.requireNonNull(errorText, "errorText");
        Objects.requireNonNull(fixedSql, "fixedSql");
        category = category == null ? "unknown" : category;
        failedSql = failedSql == null ? "" : failedSql;
        dialect = dialect == null ? "" : dialect;
        question = question == null ? "" : question;
        createdAt = createdAt == null ? Instant.now() : createdAt;
    }
}
