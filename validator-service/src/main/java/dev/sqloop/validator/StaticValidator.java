package dev.sqloop.validator;

import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.common.message.Issue;
import dev.sqloop.common.message.NlConstraints;
import dev.sqloop.validator.check.ConstraintCheck;
import dev.sqloop.validator.check.SchemaCheck;
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
 * Pure and thread-safe; an empty list means the SQL may be executed.
 */
public final class StaticValidator {
    private static final Logger LOG = LoggerFactory.getLogger(StaticValidator.class);

    private StaticValidator() {}

    public static List<Issue> validate(String sql, ValidationTarget target, NlConstraints constraints) {
        ParsedQuery parsed;
        try {
            parsed = DialectParsers.forDialect(target.dialect()).parse(sql);
            List<Issue> issues = new ArrayList<>(SchemaCheck.check(parsed, target.catalog()));
            issues.addAll(ConstraintCheck.check(constraints, parsed));
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
