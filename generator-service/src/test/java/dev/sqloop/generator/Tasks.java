package dev.sqloop.generator;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.message.Example;
import dev.sqloop.common.message.Issue;
import dev.sqloop.common.message.LinkedSchema;
import dev.sqloop.common.message.NlConstraints;
import dev.sqloop.common.message.QuestionTask;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** Test fixtures: a question about a small sales schema, at any attempt. */
final class Tasks {
    static final String QUESTION = "What is the total amount per region?";
    static final DialectLookup DIALECTS = DialectLookup.of(Map.of("demo", Dialect.DUCKDB, "warehouse", Dialect.TRINO));
    static final LinkedSchema SCHEMA = new LinkedSchema(List.of(
            new LinkedSchema.Table("sales", "one row per sale", List.of(
                    new LinkedSchema.Column("id", "INTEGER", null, List.of()),
                    new LinkedSchema.Column("region", "VARCHAR", "sales region", List.of("EU", "US", "APAC", "LATAM")),
                    new LinkedSchema.Column("amount", "DOUBLE", null, List.of()),
                    new LinkedSchema.Column("dt", "DATE", null, List.of()))),
            new LinkedSchema.Table("regions", null, List.of(new LinkedSchema.Column("name", "VARCHAR", null, List.of())))));

    private Tasks() {}

    static QuestionTask fresh(String datasource) {
        return QuestionTask.create("q-1", "acme", datasource, QUESTION, 3, Instant.parse("2026-01-01T00:00:00Z"))
                .withContext(List.of(new Example("How many sales are there?", "SELECT count(*) FROM sales", 0.9, "seed")),
                        SCHEMA, NlConstraints.NONE);
    }

    /** A failed attempt {@code attempt} with {@code sql}, whose previous attempt's SQL was {@code previous}. */
    static QuestionTask failed(int attempt, String previous, String sql, Issue... issues) {
        QuestionTask t = fresh("warehouse");
        for (int a = 1; a < attempt; a++) {
            String sqlOfA = a == attempt - 1 && previous != null ? previous : "SELECT " + a;
            t = t.withSql(sqlOfA, null).nextAttempt("fix it");
        }
        return t.withSql(sql, null).withIssues(List.of(issues));
    }

    static Issue issue(ErrorCategory category, String message) {
        return Issue.of("static-validate", category, message);
    }
}
