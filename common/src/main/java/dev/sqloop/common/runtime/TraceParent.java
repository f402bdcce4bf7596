package dev.sqloop.common.runtime;

import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;

/** W3C trace context: each stage hop keeps the trace id and gets a span id of its own. */
public final class TraceParent {
    private static final Pattern VALID = Pattern.compile("00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}");

    private TraceParent() {}

    /** A new trace, for a question that arrives without one. */
    public static String newTrace() {
        return "00-" + hex(16) + "-" + hex(8) + "-01";
    }

    /** The child of {@code parent}: same trace id and flags, new span id; a new trace if the parent is malformed. */
    public static String child(String parent) {
        if (parent == null || !VALID.matcher(parent).matches()) return newTrace();
        return parent.substring(0, 36) + hex(8) + parent.substring(52);
    }

    /** The trace id of a valid {@code traceparent}, else null: what log lines carry. */
    public static String traceId(String traceparent) {
        return traceparent != null && VALID.matcher(traceparent).matches() ? traceparent.substring(3, 35) : null;
    }

    private static String hex(int bytes) {
        byte[] b = new byte[bytes];
        ThreadLocalRandom.current().nextBytes(b);
        return HexFormat.of().formatHex(b);
    }
}
