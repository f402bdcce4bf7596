package dev.sqloop.cli;

/** {@code ./sqloop demo}: the embedded end-to-end run. */
final class Demo {
    private Demo() {}

    static int run(Args args) {
        throw new Args.UsageException("demo: not wired yet");
    }
}
