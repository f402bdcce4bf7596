package dev.sqloop.chdb;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An error chDB reported for a query, as ClickHouse prints it: {@code Code: 47. DB::Exception: … (UNKNOWN_IDENTIFIER)}.
 * {@link #code()} and {@link #name()} are ClickHouse's error code and name (0 and empty when the text carries none).
 */
public final class ChdbException extends Exception {
    private static final Pattern CODE = Pattern.compile("^Code: (\\d+)\\. ");
    /** The last "(NAME)" before an optional "(version …)" at the end: a nested exception repeats the code inside. */
    private static final Pattern NAME = Pattern.compile("\\(([A-Z][A-Z0-9_]+)\\)(?: \\(version [^)]*\\))?\\.?\\s*$");

    private final int code;
    private final String name;

    public ChdbException(int code, String name, String message) {
        super(message);
        this.code = code;
        this.name = name == null ? "" : name;
    }

    /** Reads code and name from the engine's text. */
    public static ChdbException of(String engineMessage) {
        String text = engineMessage == null ? "" : engineMessage.strip();
        Matcher c = CODE.matcher(text);
        Matcher n = NAME.matcher(text);
        return new ChdbException(c.find() ? Integer.parseInt(c.group(1)) : 0, n.find() ? n.group(1) : "", text);
    }

    public int code() {
        return code;
    }

    public String name() {
        return name;
    }
}
