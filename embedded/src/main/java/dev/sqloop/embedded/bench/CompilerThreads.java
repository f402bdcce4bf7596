package dev.sqloop.embedded.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * CPU of the JIT compilers of a process: HotSpot's {@code C1 CompilerThre…} and {@code C2 CompilerThre…} threads, read
 * from {@code /proc/PID/task/TID/stat}. A service compiles its hot code once in its life, so this share of a short run's
 * CPU is warm-up, not per-question work: in a 20,000-question run the six JVMs were still compiling ~300 methods each
 * per 40 s in the second half of the results. A compiler thread that exits (HotSpot stops idle ones where it runs
 * several) keeps the CPU it had. Linux only; elsewhere every process reads 0.
 */
final class CompilerThreads {
    /** Linux reports thread times in USER_HZ ticks, 100 per second on every architecture the JDK runs on. */
    private static final long NANOS_PER_TICK = 10_000_000L;
    /** pid → compiler thread id → its last CPU ticks. */
    private final Map<Long, Map<Long, Long>> seen = new HashMap<>();

    /** JIT compiler CPU of {@code pid} so far, in nanoseconds (its threads seen by now and any earlier call). */
    synchronized long nanos(long pid) {
        Map<Long, Long> threads = seen.computeIfAbsent(pid, p -> new HashMap<>());
        try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            tasks.forEach(task -> {
                long ticks = compilerTicks(read(task.resolve("stat")));
                if (ticks >= 0) threads.put(Long.parseLong(task.getFileName().toString()), ticks);
            });
        } catch (IOException | RuntimeException gone) {
            // the process ended or this is not Linux: what was seen stays
        }
        return threads.values().stream().mapToLong(Long::longValue).sum() * NANOS_PER_TICK;
    }

    /**
     * utime + stime of a {@code /proc/…/stat} line if its thread is a JIT compiler, else -1. The name, in parentheses,
     * may hold spaces; the fields after it start with the state (field 3), so utime and stime (14, 15) are the 12th and
     * 13th.
     */
    static long compilerTicks(String stat) {
        int open = stat.indexOf('('), close = stat.lastIndexOf(')');
        if (open < 0 || close < open) return -1;
        String name = stat.substring(open + 1, close);
        if (!name.startsWith("C1 CompilerThre") && !name.startsWith("C2 CompilerThre")) return -1;
        String[] fields = stat.substring(close + 2).split(" ");
        return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
    }

    private static String read(Path file) {
        // not Files.readString: /proc reports a size of 0
        try (InputStream in = Files.newInputStream(file)) {
            return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
        } catch (IOException gone) {
            return ""; // the thread ended between the listing and the read
        }
    }
}
