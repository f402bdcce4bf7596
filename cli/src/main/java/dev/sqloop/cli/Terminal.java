package dev.sqloop.cli;

/**
 * Whether standard output and standard error are terminals, so colour and a redrawn progress bar go only where a person
 * reads them: never into a file, a pipe or a CI log. The launcher knows ({@code [ -t 1 ]}, {@code [ -t 2 ]}) and passes
 * {@code -Dsqloop.tty.out} / {@code -Dsqloop.tty.err}; without them (a JVM started otherwise) the JVM's console is asked,
 * and on JDK 22+ whether it is a terminal at all (a console exists there even when the streams are redirected).
 */
public final class Terminal {
    private Terminal() {}

    /** Standard output is a terminal. */
    public static boolean out() {
        return is("sqloop.tty.out");
    }

    /** Standard error is a terminal. */
    public static boolean err() {
        return is("sqloop.tty.err");
    }

    /** Colour on standard output: a terminal, and neither {@code NO_COLOR} (no-color.org) nor {@code TERM=dumb}. */
    public static boolean colourOnOut() {
        String noColor = System.getenv("NO_COLOR");
        return out() && (noColor == null || noColor.isEmpty()) && !"dumb".equals(System.getenv("TERM"));
    }

    private static boolean is(String property) {
        String told = System.getProperty(property);
        if (told != null) return Boolean.parseBoolean(told);
        java.io.Console console = System.console();
        if (console == null) return false;
        try {
            // Console.isTerminal() is JDK 22+; the build targets 21
            return (Boolean) java.io.Console.class.getMethod("isTerminal").invoke(console);
        } catch (ReflectiveOperationException e) {
            return true; // JDK 21: a console exists only on a terminal
        }
    }
}
