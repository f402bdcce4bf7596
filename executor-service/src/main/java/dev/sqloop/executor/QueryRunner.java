package dev.sqloop.executor;

import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.message.Execution;
import dev.sqloop.common.runtime.InfrastructureException;

/** Runs one SQL text read-only on a datasource; {@link ReadOnlyExecutor} is the JDBC implementation. */
public interface QueryRunner {

    /** What running one SQL text gave. */
    sealed interface Result permits Succeeded, Failed {}

    record Succeeded(Execution execution) implements Result {}

    record Failed(EngineError error) implements Result {}

    /** @throws InfrastructureException when the engine cannot be reached (the runner retries) */
    Result run(DatasourceConfig ds, String sql);
}
