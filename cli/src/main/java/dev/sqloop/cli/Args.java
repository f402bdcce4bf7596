package dev.sqloop.cli;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code --name value} / {@code --flag} options and positional arguments, for the commands that still parse their own
 * ({@code eval}, {@code bench}: picocli hands them their arguments untouched); and the usage errors every command throws.
 */
public final class Args {
    /**
     * Options that are switches in every command: they never take the next argument as their value, so
     * {@code ./sqloop retry --batch ID} reads ID as the id ({@code --wait=false} still sets one explicitly).
     */
    static final java.util.Set<String> SWITCHES = java.util.Set.of("batch", "dry-run", "help", "no-share", "print-classpath",
            "processes", "resubmit", "resume", "retry-failed", "serve", "unique", "wait");

    /** Every value of each option, in order: a repeated option ({@code --offset 3 --offset 5}) keeps them all. */
    private final Map<String, List<String>> options = new HashMap<>();
    private final List<String> positional = new ArrayList<>();

    public Args(List<String> raw) {
        for (int i = 0; i < raw.size(); i++) {
            String a = raw.get(i);
            if (a.startsWith("--")) {
                String name = a.substring(2);
                int eq = name.indexOf('=');
                if (eq >= 0) put(name.substring(0, eq), name.substring(eq + 1));
                else if (!SWITCHES.contains(name) && i + 1 < raw.size() && !raw.get(i + 1).startsWith("--")) put(name, raw.get(++i));
                else put(name, "true");
            } else {
                positional.add(a);
            }
        }
    }

    private void put(String name, String value) {
        options.computeIfAbsent(name, n -> new ArrayList<>()).add(value);
    }

    public List<String> positional() {
        return positional;
    }

    public boolean flag(String name) {
        return Boolean.parseBoolean(string(name, "false"));
    }

    /** The option's value (the last one when it was given more than once), or {@code fallback}. */
    public String string(String name, String fallback) {
        List<String> values = options.get(name);
        return values == null ? fallback : values.getLast();
    }

    /** Every value the option was given, in order; empty when it was not given. */
    public List<String> strings(String name) {
        return List.copyOf(options.getOrDefault(name, List.of()));
    }

    public int integer(String name, int fallback) {
        String v = string(name, null);
        if (v == null) return fallback;
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new UsageException("--" + name + " must be an integer, was '" + v + "'");
        }
    }

    /**
     * The positional argument at {@code index} as a count of 1 or more, {@code fallback} when there is none; anything
     * else is a usage error that says {@code what} the count is (not a NumberFormatException's stack trace).
     */
    public static int count(String[] positional, int index, int fallback, String what) {
        if (positional.length <= index) return fallback;
        String v = positional[index];
        try {
            int n = Integer.parseInt(v.trim());
            if (n >= 1) return n;
        } catch (NumberFormatException e) {
            // the usage error below
        }
        throw new UsageException(what + " is a whole number of 1 or more, was '" + v + "'");
    }

    /** Refuses, by name, any option not in {@code known} (and any positional argument when {@code positionals} is false). */
    public Args allowOnly(boolean positionals, String... known) {
        java.util.Set<String> allowed = java.util.Set.of(known);
        for (String name : new java.util.TreeSet<>(options.keySet())) {
            if (!allowed.contains(name)) throw new UsageException("unknown option --" + name + " (known: --" + String.join(", --", known) + ")");
        }
        if (!positionals && !positional.isEmpty()) throw new UsageException("unexpected argument '" + positional.getFirst() + "'");
        return this;
    }

    /**
     * A subcommand's arguments: {@code --help} (or {@code -h}) anywhere answers its {@code usage} (exit 0, through
     * {@link HelpRequested}); an option not in {@code known} is refused by name (exit 2).
     */
    public static Args forCommand(List<String> raw, String usage, String... known) {
        if (raw.contains("--help") || raw.contains("-h")) throw new HelpRequested(usage);
        String[] withHelp = java.util.Arrays.copyOf(known, known.length + 1);
        withHelp[known.length] = "help";
        return new Args(raw).allowOnly(true, withHelp);
    }

    /** {@code --help} was asked for: print {@link #usage()} on stdout and exit 0. */
    public static final class HelpRequested extends RuntimeException {
        private final String usage;

        public HelpRequested(String usage) {
            super("help", null, false, false);
            this.usage = usage;
        }

        public String usage() {
            return usage;
        }
    }

    /** A command line that cannot be run as written. */
    public static final class UsageException extends RuntimeException {
        public UsageException(String message) {
            super(message);
        }
    }
}
