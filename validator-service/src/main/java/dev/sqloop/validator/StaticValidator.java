package dev.sqloop.validator;

import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.message.Issue;
import dev.sqloop.common.message.NlConstraints;
import dev.sqloop.validator.check.ConstraintCheck;
import dev.sqloop.validator.check.SchemaCheck;
import dev.sqloop.validator.parse.DialectParsers;
import dev.sqloop.validator.parse.ParsedQuery;
import dev.sqloop.validator.parse.SqlRejection;
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

    public static List<Issue> validate(String sql, ValidationTarget target, NlConstraints constraints) {
        ParsedQuery parsed;
        try {
            parsed = DialectParsers.forDialect(target.dialect()).parse(sql);
            List<Issue> found = new ArrayList<>(SchemaCheck.check(parsed, target.catalog()));
            found.addAll(ConstraintCheck.check(constraints, parsed));
            // Errors first: the first issue decides the repair strategy; hints only ride along.
            List<Issue> issues = new ArrayList<>(found.stream().filter(Issue::error).toList());
            issues.addAll(found.stream().filter(Issue::hint).toList());
            return List.copyOf(issues);
        } catch (SqlRejection r) {
            return List.of(new Issue(SchemaCheck.STAGE, r.category(), r.getMessage(), r.identifier(), List.of()));
        } catch (RuntimeException | StackOverflowError e) {
            // A parser or walker defect on an unusual tree must not let unchecked SQL through to execute.
            LOG.warn("static validation failed on a {} query: {}", target.dialect().wireName(), e.toString());
            return List.of(Issue.of(SchemaCheck.STAGE, ErrorCategory.UNKNOWN,
                    "the validator could not analyse this query (" + e.getClass().getSimpleName() + "); write it more simply"));
        }
    }
}
