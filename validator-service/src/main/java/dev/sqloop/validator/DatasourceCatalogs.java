package dev.sqloop.validator;

import java.util.Optional;

/**
 * Looks up a datasource by the name carried in {@code QuestionTask.datasource()}: its dialect and a (cached)
 * schema catalog. Implementations wrap the datasource configuration; a warehouse that cannot be reached while
 * loading the catalog is an {@link dev.sqloop.common.runtime.InfrastructureException}, retried by the runner.
 */
@FunctionalInterface
public interface DatasourceCatalogs {

    /** The target for a datasource name, or empty when no such datasource is configured. */
    Optional<ValidationTarget> find(String datasource);
}
