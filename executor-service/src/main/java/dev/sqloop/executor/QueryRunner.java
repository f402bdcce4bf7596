package dev.sqloop.executor;

import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.message.Execution;
import dev.sqloop.common.runtime.InfrastructureException;

/** Runs one SQL text read-only on a datasource; {@link ReadOnlyExecutor} is the JDBC implementation. */
public interface QueryRunner {

    /** What running one SQL text gave. */
    sealed interface Result permits Succeeded, Failed {}

    record Succeeded(Execution execution) implements Result {}

    /** @param sent whether the engine saw the statement (false: refused before, by the guard or an allow-list) */
    record Failed(EngineError error, boolean sent) implements Result {
        /** The engine ran or planned the statement and reported this error. */
        public Failed(EngineError error) {
            this(error, true);
        }

        /** Refused by sqloop before any engine saw it. */
        public static Failed refused(EngineError error) {
            return new Failed(error, false);
        }
    }

    /** @throws InfrastructureException when the engine cannot be reached (the runner retries) */
    Result run(DatasourceConfig ds, String sql);
}
