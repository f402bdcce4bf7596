package dev.sqloop.generator;

import dev.langchain4j.exception.HttpException;
import java.io.InterruptedIOException;
import java.net.http.HttpTimeoutException;

/**
 * The OTel {@code error.type} of a failed LLM call, bounded: the HTTP status when one is known, {@code timeout},
 * {@code rejected} for a refusal without a status, else the simple class name of the innermost cause.
 */
final class LlmErrorType {
    static final String TIMEOUT = "timeout";
    static final String REJECTED = "rejected";

    private LlmErrorType() {}

    static String of(Throwable e) {
        if (e instanceof LlmRejectedException r) return status(r.statusCode()) ? Integer.toString(r.statusCode()) : REJECTED;
        Throwable root = e;
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof HttpException h && status(h.statusCode())) return Integer.toString(h.statusCode());
            if (timeout(t)) return TIMEOUT;
            root = t;
        }
        return root.getClass().getSimpleName();
    }

    private static boolean status(int code) {
        return code >= 100 && code <= 599;
    }

    private static boolean timeout(Throwable t) {
        // SocketTimeoutException is an InterruptedIOException; HttpTimeoutException (java.net.http) is not
        return t instanceof dev.langchain4j.exception.TimeoutException || t instanceof java.util.concurrent.TimeoutException
                || t instanceof HttpTimeoutException || t instanceof InterruptedIOException;
    }
}
