package dev.sqloop.cli;

/**
 * A command that ran and could not do what was asked, for a reason it can say in one line (a refusal, a store in use,
 * questions that failed): printed as {@code sqloop: <message>} with its exit code, never with a stack trace.
 */
public final class CommandFailure extends RuntimeException {
    private final int exitCode;

    public CommandFailure(String message, int exitCode) {
        super(message, null, false, false);
        this.exitCode = exitCode;
    }

    public CommandFailure(String message) {
        this(message, Main.FAILED);
    }

    public int exitCode() {
        return exitCode;
    }
}
