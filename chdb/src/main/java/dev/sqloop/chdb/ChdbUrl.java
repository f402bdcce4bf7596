package dev.sqloop.chdb;

import java.nio.file.Path;

/**
 * A {@code jdbc:chdb:DIR[?database=NAME]} datasource URL read: the engine's directory and the database bare names resolve
 * in ({@code default} when none is named). Services other than the executor (the validator's catalog, schema linking)
 * read chDB datasources through it.
 */
public record ChdbUrl(Path directory, String database) {
    public static final String PREFIX = "jdbc:chdb:";

    /** Whether {@code url} names a chDB datasource (in-process, not a JDBC driver). */
    public static boolean matches(String url) {
        return url != null && url.startsWith(PREFIX);
    }

    /** @throws IllegalArgumentException when the URL names no directory or the database is not a plain name */
    public static ChdbUrl of(String url) {
        if (!matches(url)) throw new IllegalArgumentException("not a chDB URL (" + PREFIX + "DIR[?database=NAME]): " + url);
        String rest = url.substring(PREFIX.length());
        String database = "default";
        int q = rest.indexOf('?');
        if (q >= 0) {
            for (String pair : rest.substring(q + 1).split("&")) {
                if (pair.startsWith("database=") && pair.length() > "database=".length()) database = pair.substring("database=".length());
            }
            rest = rest.substring(0, q);
        }
        if (rest.isBlank()) throw new IllegalArgumentException("a chDB URL names a directory: jdbc:chdb:/path/to/dir[?database=NAME]");
        if (!database.matches("[A-Za-z_][A-Za-z0-9_]*")) throw new IllegalArgumentException("database must be a plain name, was '" + database + "'");
        return new ChdbUrl(Path.of(rest), database);
    }
}
