package dev.sqloop.lab;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where each process's CPU goes, native code included: a system-wide {@code perf record} (Linux perf, the kernel's
 * CPU-clock sampling) over a window of the run, each sample put on its process and on the kind of code it hit. JFR's
 * samples see Java frames only, so the ONNX embedding, DuckDB, the JIT compiler, the collector and the kernel were
 * charged to the Java code beside them or missed (a JFR profile put Jackson at 30-43 % of every service; perf puts all
 * of the services' Java code at about a third of their CPU). Needs {@code perf} and the right to sample every process
 * (root, or {@code kernel.perf_event_paranoid} at -1).
 */
final class NativeProfile {
    /** Samples per second per CPU: each is 1/HZ s of that CPU's time. */
    static final int HZ = 499;
    private static final Pattern LINE = Pattern.compile("^\\s*(.+?)\\s+(\\d+)\\s+[0-9a-f]+\\s+\\((.*)\\)\\s*$");

    private NativeProfile() {}

    /** The kind of code a sample of thread {@code comm} hit in {@code dso} (perf's name for the binary). */
    static String category(String comm, String dso) {
        String d = dso.toLowerCase(Locale.ROOT);
        if (d.contains("onnxruntime") || d.contains("tokenizers")) return "embedding (ONNX)";
        if (d.contains("duckdb")) return "DuckDB";
        if (d.contains("rocksdb")) return "RocksDB";
        if (d.contains("lz4") || d.contains("zstd") || d.contains("snappy")) return "compression";
        if (d.contains("kernel") || d.contains("vmlinux")) return "kernel";
        if (d.contains("libjvm")) {
            if (comm.contains("Compiler")) return "JIT compiler";
            if (comm.startsWith("GC ") || comm.startsWith("G1 ")) return "GC";
            return "JVM runtime, interpreter";
        }
        // code the JVM generated (compiled and interpreted Java): perf names it by the JVM's map file or not at all
        if (d.contains("perf-") || d.contains("[jit]") || d.contains("unknown") || d.contains("anon")) return "Java code";
        if (d.contains("libc.so") || d.contains("libstdc++") || d.contains("libgcc")) return "libc, libstdc++";
        return "other native";
    }

    /** Samples by part and kind of code, from {@code perf script -F comm,pid,ip,dso} lines; pids not in {@code parts} are left out. */
    static Map<String, Map<String, Long>> split(Iterable<String> lines, Map<Long, String> parts) {
        Map<String, Map<String, Long>> out = new LinkedHashMap<>();
        for (String part : parts.values()) out.put(part, new TreeMap<>());
        for (String line : lines) {
            Matcher m = LINE.matcher(line);
            if (!m.matches()) continue;
            String part = parts.get(Long.parseLong(m.group(2)));
            if (part == null) continue;
            out.get(part).merge(category(m.group(1), m.group(3)), 1L, Long::sum);
        }
        return out;
    }

    /**
     * The report's lines: ms of CPU per question (or per whatever {@code questions} counts) per part, split by kind of
     * code (largest first), then the parts in {@code services} summed.
     */
    static List<String> lines(Map<String, Map<String, Long>> split, double questions, List<String> services) {
        List<String> out = new ArrayList<>();
        Map<String, Long> sum = new TreeMap<>();
        split.forEach((part, kinds) -> {
            out.add(line(part, kinds, questions));
            if (services.contains(part)) kinds.forEach((k, n) -> sum.merge(k, n, Long::sum));
        });
        out.add(line("= the six services", sum, questions));
        return out;
    }

    private static String line(String part, Map<String, Long> kinds, double questions) {
        double total = kinds.values().stream().mapToLong(Long::longValue).sum() * 1000.0 / HZ / questions;
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "%-34s %7.2f ", part, total));
        kinds.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .map(e -> String.format(Locale.ROOT, "%s %.2f", e.getKey(), e.getValue() * 1000.0 / HZ / questions))
                .reduce((a, c) -> a + ", " + c).ifPresent(s -> b.append(" ").append(s));
        return b.toString();
    }

    /** Whether {@code perf} runs here. */
    static boolean available() {
        try {
            Process p = new ProcessBuilder("perf", "--version").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Records every CPU for {@code seconds} into {@code dir}, counting the questions final over the window. */
    static Recording start(Path dir, int seconds, IntSupplier finished) throws IOException {
        Path data = dir.resolve("perf.data");
        Process p = new ProcessBuilder("perf", "record", "-e", "cpu-clock", "-F", Integer.toString(HZ), "-a", "-o", data.toString(),
                "--", "sleep", Integer.toString(seconds))
                .redirectErrorStream(true).redirectOutput(dir.resolve("perf-record.log").toFile()).start();
        return new Recording(p, data, dir, seconds, finished);
    }

    static final class Recording {
        private final Process process;
        private final Path data;
        private final Path dir;
        private final int seconds;
        private final int finishedAtStart;
        /** The questions final when perf ended (not when the report is asked for, after the run). */
        private final java.util.concurrent.CompletableFuture<Integer> finishedAtEnd;

        private Recording(Process process, Path data, Path dir, int seconds, IntSupplier finished) {
            this.process = process;
            this.data = data;
            this.dir = dir;
            this.seconds = seconds;
            this.finishedAtStart = finished.getAsInt();
            this.finishedAtEnd = process.onExit().thenApply(p -> finished.getAsInt());
        }

        /** Waits for the window to close; the report's block, or why there is none. */
        List<String> report(Map<Long, String> parts, List<String> services) throws IOException, InterruptedException {
            if (!process.waitFor(seconds + 60L, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return List.of("perf record did not end; see " + dir.resolve("perf-record.log"));
            }
            int finishedThen;
            try {
                finishedThen = finishedAtEnd.get();
            } catch (java.util.concurrent.ExecutionException e) {
                throw new IllegalStateException("counting the questions at perf's end failed", e.getCause());
            }
            if (process.exitValue() != 0 || !Files.exists(data)) {
                return List.of("perf record failed (exit " + process.exitValue() + "): " + Files.readString(dir.resolve("perf-record.log")).strip());
            }
            int questions = finishedThen - finishedAtStart;
            Process script = new ProcessBuilder("perf", "script", "-i", data.toString(), "-F", "comm,pid,ip,dso")
                    .redirectError(dir.resolve("perf-script.log").toFile()).start();
            List<String> lines = new ArrayList<>();
            try (BufferedReader r = new BufferedReader(new InputStreamReader(script.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = r.readLine(); line != null; line = r.readLine()) lines.add(line);
            }
            if (!script.waitFor(5, TimeUnit.MINUTES)) {
                script.destroyForcibly();
                return List.of("perf script did not end in 5 minutes; see " + dir.resolve("perf-script.log"));
            }
            if (script.exitValue() != 0 || lines.isEmpty()) { // not a profile of 0 samples: why there is none
                return List.of("perf script failed (exit " + script.exitValue() + ", " + lines.size() + " samples): "
                        + Files.readString(dir.resolve("perf-script.log")).strip());
            }
            List<String> out = new ArrayList<>();
            // a window no question ended in (a short batch's tail) still says where the CPU went: per second instead
            out.add(String.format(Locale.ROOT, "perf, every CPU, %d s from half the results (%d questions final in it; %d samples): "
                    + "ms of CPU per %s by kind of code", seconds, questions, lines.size(), questions > 0 ? "question" : "second"));
            out.addAll(lines(split(lines, parts), questions > 0 ? questions : seconds, services));
            return out;
        }
    }
}
