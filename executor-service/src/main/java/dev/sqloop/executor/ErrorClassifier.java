package dev.sqloop.executor;

import java.sql.SQLException;

/** Maps one engine's JDBC failures onto the error taxonomy, from the engine's own codes and message types. */
public interface ErrorClassifier {

    /** Classifies a failure already known not to be a driver-level timeout or connection failure. */
    EngineError classifyEngine(SQLException e, String message);

    /**
     * The whole decision: connection-level failures (the pool, the network, SQLSTATE class 08) first, then
     * driver timeouts, then the engine's own classification.
     */
    default EngineError classify(SQLException e) {
        String message = EngineMessages.clean(e);
        if (EngineMessages.isConnectionFailure(e)) return EngineError.infrastructure(message);
        if (e instanceof java.sql.SQLTimeoutException) {
            return EngineError.sql(dev.sqloop.common.error.ErrorCategory.TIMEOUT, message);
        }
        return classifyEngine(e, message);
    }
}
