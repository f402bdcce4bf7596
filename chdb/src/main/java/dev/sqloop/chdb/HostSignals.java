package dev.sqloop.chdb;

import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The JVM's signal handlers, kept from chDB. By default {@code chdb_connect} installs ClickHouse's crash handlers for
 * SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGTSTP and SIGSYS over the process's own; the JVM raises SIGSEGV
 * on purpose (implicit null checks, safepoint polls), so with chDB's handler in place a routine trap kills the process
 * at a random moment: test JVMs died with SIGSEGV and SIGILL minutes after chDB started, and hung at exit in chDB's
 * handler (chdb-io/chdb-core#221, chdb-go#37 saw the same with Go's runtime). {@link Chdb} turns chDB's handlers off
 * before its first connection and, should a connection take a handler anyway, puts the JVM's back.
 */
final class HostSignals {
    /** glibc's {@code struct sigaction} is 152 bytes on x86-64 and aarch64; read and written as an opaque block. */
    private static final int SIGACTION_BYTES = 256;
    private static final int SIGKILL = 9;
    private static final int SIGSTOP = 19;
    private static final int LAST_STANDARD = 31;

    private interface LibC extends Library {
        int sigaction(int signal, Pointer action, Pointer previous);
    }

    private static final LibC C = Native.load("c", LibC.class);

    private final Map<Integer, Memory> saved;

    private HostSignals(Map<Integer, Memory> saved) {
        this.saved = saved;
    }

    /** The handlers the process has now, for the standard signals it handles itself (not the default, not ignored). */
    static HostSignals save() {
        Map<Integer, Memory> saved = new LinkedHashMap<>();
        for (int s = 1; s <= LAST_STANDARD; s++) {
            if (s == SIGKILL || s == SIGSTOP) continue;
            Memory m = current(s);
            if (handler(m) > 1) saved.put(s, m); // 0 = SIG_DFL, 1 = SIG_IGN
        }
        return new HostSignals(saved);
    }

    /** Puts back every saved handler something replaced since {@link #save()}; answers the signals it put back. */
    List<Integer> restore() {
        List<Integer> taken = new ArrayList<>();
        for (Map.Entry<Integer, Memory> e : saved.entrySet()) {
            if (handler(current(e.getKey())) == handler(e.getValue())) continue;
            C.sigaction(e.getKey(), e.getValue(), null);
            taken.add(e.getKey());
        }
        return taken;
    }

    /** The address of the handler now installed for {@code signal} (0 default, 1 ignored). */
    static long handlerOf(int signal) {
        return handler(current(signal));
    }

    private static Memory current(int signal) {
        Memory m = new Memory(SIGACTION_BYTES);
        m.clear();
        if (C.sigaction(signal, null, m) != 0) throw new IllegalStateException("sigaction(" + signal + ") failed");
        return m;
    }

    /** {@code sa_handler} / {@code sa_sigaction}: the first field of glibc's {@code struct sigaction}. */
    private static long handler(Memory action) {
        return action.getLong(0);
    }
}
