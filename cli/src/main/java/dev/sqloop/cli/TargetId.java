package dev.sqloop.cli;

import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** The {@code ID [--batch]} operand of status, cancel and retry: a question's id, or with {@code --batch} a batch's. */
final class TargetId {
    @Parameters(index = "0", paramLabel = "ID", description = "the question's (or batch's) id")
    String id;
    @Option(names = "--batch", description = "ID is a batch")
    boolean batch;

    /** The gateway path of the question or batch. */
    String path() {
        return (batch ? "/v1/batches/" : "/v1/questions/") + id;
    }
}
