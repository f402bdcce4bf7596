package dev.sqloop.lab;

import java.io.IOException;
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
        return threads.values().stream().mapToLong(Long::longValue).sum() * CpuProfile.NANOS_PER_TICK;
    }

    /** utime + stime of a {@code /proc/…/stat} line if its thread (named in parentheses) is a JIT compiler, else -1. */
    static long compilerTicks(String stat) {
        int open = stat.indexOf('('), close = stat.lastIndexOf(')');
        if (open < 0 || close < open || !CpuProfile.jitCompiler(stat.substring(open + 1, close))) return -1;
        return CpuProfile.statTicks(stat);
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException gone) {
            return ""; // the thread ended between the listing and the read
        }
    }
}
