package dev.sqloop.lab;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * Where this JVM's CPU goes while the pipeline runs, by part: each stage (its runner's consumer thread, its
 * virtual worker threads and its producer's network thread all carry the stage's group name), the gateway, the
 * in-process broker, the simulated LLM, and the JVM's own GC and JIT threads.
 *
 * <p>Two clocks, because neither alone is enough: the kernel's per-thread CPU time ({@code /proc/self/task}) is
 * exact but cannot see into virtual threads, which share carrier threads; JFR's execution samples see which
 * thread (virtual included) ran Java code, but not GC, JIT or native library threads. So the kernel splits the
 * process CPU into GC, JIT, native library threads and Java threads, and the samples split the Java threads' share
 * by part. Native code a Java thread runs (the ONNX embedding, on the stage's own thread) is in that share but not in
 * the samples, so it is spread over the parts in proportion; the benchmark reports the embedding's CPU apart.
 */
final class CpuProfile implements AutoCloseable {
    /** Stage names as runner threads carry them ({@code sqloop-<group>-…}); longest first, so a prefix never wins. */
    private static final List<String> STAGES = List.of("retrieve-examples", "static-validate", "example-commands", "regenerate",
            "generate", "execute", "repair", "capture", "feedback", "gateway");
    static final String BROKER = "kafka broker";
    static final String LLM = "simulated LLM";
    static final String GC = "JVM: GC";
    static final String JIT = "JVM: JIT";
    static final String NATIVE = "native threads (not the JVM's)";
    static final String OTHER = "other Java";

    private final Recording recording;
    private final Map<Integer, Long> startTicks;
    private final long startProcessNanos;
    private final Path file;
    private final Map<String, Map<String, Long>> hot = new TreeMap<>();
    private final Map<String, Long> early = new TreeMap<>();
    private final Map<String, Map<String, Long>> earlyHot = new TreeMap<>();

    private CpuProfile(Recording recording, Map<Integer, Long> startTicks, long startProcessNanos, Path file) {
        this.recording = recording;
        this.startTicks = startTicks;
        this.startProcessNanos = startProcessNanos;
        this.file = file;
    }

    static CpuProfile start(Path file) {
        Recording r = new Recording();
        r.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(10));
        r.start();
        return new CpuProfile(r, taskTicks(), processCpuNanos(), file);
    }

    /** CPU nanoseconds per part over the profiled span, and the process total under {@code "total"}. */
    Map<String, Long> stop() throws IOException {
        return stop(Instant.MIN);
    }

    /** {@link #stop()}, also keeping the samples taken before {@code cutoff} apart ({@link #before}). */
    Map<String, Long> stop(Instant cutoff) throws IOException {
        long processNanos = processCpuNanos() - startProcessNanos;
        recording.stop();
        recording.dump(file);
        Map<Integer, Long> endTicks = taskTicks();
        Map<String, Long> kernel = new TreeMap<>();
        for (Map.Entry<Integer, Long> e : endTicks.entrySet()) {
            long delta = e.getValue() - startTicks.getOrDefault(e.getKey(), 0L);
            kernel.merge(kernelPart(comm(e.getKey())), delta * NANOS_PER_TICK, Long::sum);
        }
        Map<String, Long> samples = new TreeMap<>();
        long all = 0;
        hot.clear();
        early.clear();
        earlyHot.clear();
        for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
            if (!e.getEventType().getName().equals("jdk.ExecutionSample")) continue;
            String part = part(e);
            String frame = hotFrame(e);
            samples.merge(part, 1L, Long::sum);
            hot.computeIfAbsent(part, k -> new TreeMap<>()).merge(frame, 1L, Long::sum);
            if (e.getStartTime().isBefore(cutoff)) {
                early.merge(part, 1L, Long::sum);
                earlyHot.computeIfAbsent(part, k -> new TreeMap<>()).merge(frame, 1L, Long::sum);
            }
            all++;
        }
        long javaNanos = Math.max(0, processNanos - kernel.getOrDefault(GC, 0L) - kernel.getOrDefault(JIT, 0L) - kernel.getOrDefault(NATIVE, 0L));
        Map<String, Long> parts = new LinkedHashMap<>();
        for (Map.Entry<String, Long> s : samples.entrySet()) parts.put(s.getKey(), all == 0 ? 0 : javaNanos * s.getValue() / all);
        for (String k : List.of(GC, JIT, NATIVE)) parts.put(k, kernel.getOrDefault(k, 0L));
        parts.put("total", processNanos);
        parts.put("samples", all);
        return parts;
    }

    /**
     * The Java samples taken before the cutoff given to {@link #stop(Instant)}, by part, biggest first, each with its
     * hottest code: "gateway 41 % (BeanPropertyWriter.serializeAsField 9%)".
     */
    List<String> before(int n) {
        long sum = early.values().stream().mapToLong(Long::longValue).sum();
        return early.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(n)
                .map(e -> String.format(java.util.Locale.ROOT, "%s %.0f %% (%s)", e.getKey(), 100.0 * e.getValue() / sum,
                        String.join(", ", top(earlyHot.getOrDefault(e.getKey(), Map.of()), 2))))
                .toList();
    }

    /** The {@code n} code locations with most samples in {@code part}, with their share of the part's samples. */
    List<String> hottest(String part, int n) {
        return top(hot.getOrDefault(part, Map.of()), n);
    }

    private static List<String> top(Map<String, Long> m, int n) {
        long sum = m.values().stream().mapToLong(Long::longValue).sum();
        return m.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(n)
                .map(e -> String.format(java.util.Locale.ROOT, "%s %.0f%%", e.getKey(), 100.0 * e.getValue() / sum)).toList();
    }

    /**
     * Where a sample's time goes, named by the first frame from the leaf that is not JDK code (the library or sqloop
     * class doing the work: a JDK HashMap lookup is charged to whoever called it), by class and method.
     */
    private static String hotFrame(RecordedEvent e) {
        if (e.getStackTrace() == null) return "?";
        List<RecordedFrame> frames = e.getStackTrace().getFrames();
        for (RecordedFrame f : frames) {
            String type = f.getMethod().getType().getName();
            if (type.startsWith("java.") || type.startsWith("jdk.") || type.startsWith("sun.") || type.startsWith("com.sun.")) continue;
            return type.substring(type.lastIndexOf('.') + 1) + "." + f.getMethod().getName();
        }
        if (frames.isEmpty()) return "?";
        String type = frames.get(0).getMethod().getType().getName();
        return type.substring(type.lastIndexOf('.') + 1) + "." + frames.get(0).getMethod().getName();
    }

    @Override
    public void close() {
        recording.close();
        try {
            Files.deleteIfExists(file);
        } catch (IOException ignored) {
            // a temp file
        }
    }

    static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    private static String part(RecordedEvent e) {
        RecordedThread t = e.getThread("sampledThread");
        String name = t == null ? "" : t.getJavaName() == null ? "" : t.getJavaName();
        if (name.startsWith("simulated-llm-")) return LLM; // its handler threads, in the JDK's HTTP server code too
        List<RecordedFrame> frames = e.getStackTrace() == null ? List.of() : e.getStackTrace().getFrames();
        for (RecordedFrame f : frames) {
            String type = f.getMethod().getType().getName();
            if (type.startsWith("dev.sqloop.testkit.llm.")) return LLM;
            if (type.startsWith("kafka.") || type.startsWith("org.apache.kafka.server.") || type.startsWith("org.apache.kafka.storage.")
                    || type.startsWith("org.apache.kafka.raft.") || type.startsWith("org.apache.kafka.controller.")
                    || type.startsWith("org.apache.kafka.metadata.") || type.startsWith("org.apache.kafka.image.")
                    || type.startsWith("org.apache.kafka.coordinator.") || type.startsWith("org.apache.kafka.network.")) {
                return BROKER;
            }
        }
        String stage = stageOf(name);
        if (stage != null) return stage;
        if (name.contains("StreamThread") || name.contains("sqloop-gateway")) return "gateway";
        for (RecordedFrame f : frames) {
            String type = f.getMethod().getType().getName();
            if (type.startsWith("dev.sqloop.gateway.") || type.startsWith("org.apache.kafka.streams.")) return "gateway";
        }
        return OTHER;
    }

    /** The stage a runner thread works for: {@code sqloop-<stage>-…} or a client id {@code … | sqloop-<group>-…}. */
    static String stageOf(String threadName) {
        for (String s : STAGES) {
            if (threadName.startsWith("sqloop-" + s + "-") || threadName.contains(" sqloop-" + s + "-")) {
                return s.equals("regenerate") ? "generate" : s;
            }
        }
        return null;
    }

    private static String kernelPart(String comm) {
        if (comm.startsWith("GC Thread") || comm.startsWith("G1 ")) return GC;
        if (jitCompiler(comm)) return JIT;
        if (comm.equals("java") || comm.startsWith("onnx") || comm.isEmpty()) return NATIVE;
        return "java threads";
    }

    /** Linux reports thread times in USER_HZ ticks, 100 per second on every architecture the JDK runs on. */
    static final long NANOS_PER_TICK = 10_000_000L;

    /** Whether a thread of this name (as /proc shows it, cut at 15 characters) is one of HotSpot's JIT compilers. */
    static boolean jitCompiler(String name) {
        return name.startsWith("C1 CompilerThre") || name.startsWith("C2 CompilerThre");
    }

    /**
     * utime + stime of a {@code /proc/…/stat} line, in clock ticks. The name, in parentheses, may hold spaces; the fields
     * after it start with the state (field 3), so utime and stime (14, 15) are the 12th and 13th.
     */
    static long statTicks(String stat) {
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }

    /** utime + stime in clock ticks of every thread of this process, by thread id. */
    private static Map<Integer, Long> taskTicks() {
        Map<Integer, Long> ticks = new TreeMap<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path t : tasks.toList()) {
                try {
                    ticks.put(Integer.parseInt(t.getFileName().toString()), statTicks(Files.readString(t.resolve("stat"))));
                } catch (IOException | RuntimeException gone) {
                    // the thread ended meanwhile
                }
            }
        } catch (IOException e) {
            // not Linux: the kernel split is empty, every CPU nanosecond counts as Java
        }
        return ticks;
    }

    private static String comm(int tid) {
        try {
            return Files.readString(Path.of("/proc/self/task/" + tid + "/comm")).strip();
        } catch (IOException e) {
            return "";
        }
    }
}
