package dev.sqloop.generator;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.config.EnvConfig;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.common.datasource.Datasources;
import java.util.Map;
import java.util.Optional;

/**
 * Which SQL dialect a datasource speaks. The full datasource configuration lives elsewhere; the generator only
 * needs this one fact, so it depends on this small interface.
 */
@FunctionalInterface
public interface DialectLookup {
    Optional<Dialect> dialectOf(String datasource);

    /**
     * The question's dialect: the one the gateway resolved and the task carries; for a task from a producer older
     * than that field, this lookup by its datasource.
     */
    default Optional<Dialect> dialectOf(QuestionTask task) {
        return task.dialect() != null ? Optional.of(task.dialect()) : dialectOf(task.datasource());
    }

    static DialectLookup of(Map<String, Dialect> dialects) {
        Map<String, Dialect> copy = Map.copyOf(dialects);
        return datasource -> Optional.ofNullable(copy.get(datasource));
    }

    /** From the datasource settings every service shares: {@code SQLOOP_DATASOURCE_<NAME>_DIALECT=trino}. */
    static DialectLookup fromEnv(EnvConfig env) {
        return of(Datasources.dialectsFromEnv(env));
    }
}
