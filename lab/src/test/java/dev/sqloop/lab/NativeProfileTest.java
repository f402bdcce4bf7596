package dev.sqloop.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Splitting a system-wide perf sample by process and kind of code (lines as `perf script -F comm,pid,ip,dso` prints them). */
class NativeProfileTest {
    static final List<String> LINES = List.of(
            " ForkJoinPool-1- 24056      7f708dadf967 (/tmp/bench/onnx/libonnxruntime.so)",
            " ForkJoinPool-1- 24056      7f708dadf96e (/tmp/bench/onnx/libonnxruntime.so)",
            " ForkJoinPool-1- 24056      7fe168b25bcc (/tmp/perf-24056.map)",
            " sqloop-retrieve 24056  ffffffff813a2313 ([kernel.kallsyms])",
            " C2 CompilerThre 24056      7f71f8131a3a (/usr/lib/jvm/temurin-25-jdk-amd64/lib/server/libjvm.so)",
            " G1 Conc#0       24091      7f71f8131a3a (/usr/lib/jvm/temurin-25-jdk-amd64/lib/server/libjvm.so)",
            " GC Thread#1     24091      7f71f8131a3a (/usr/lib/jvm/temurin-25-jdk-amd64/lib/server/libjvm.so)",
            " ForkJoinPool-1- 24091      7f71f8131a3a (/usr/lib/jvm/temurin-25-jdk-amd64/lib/server/libjvm.so)",
            " ForkJoinPool-1- 24091      7f10000000aa (/tmp/libduckdb_java17712217348354078837.so)",
            " ForkJoinPool-1- 24091      7f10000000ab (/usr/lib/x86_64-linux-gnu/libc.so.6)",
            " sqloop-execute- 24091      7f10000000ac ([unknown])",
            " bench-gateway-3 24103      7f10000000ad (/tmp/librocksdbjni11279075340945510589.so)",
            " kafka-producer- 24103      7f10000000ae (/tmp/liblz4-java-6297811986318166579.so)",
            " data-plane-kafk 23774      7fe168b25bcc (/tmp/perf-23774.map)",
            " swapper             0  ffffffff81000000 ([kernel.kallsyms])",
            "not a sample line");

    @Test
    void shouldPutEachSampleOnItsProcessAndKindOfCode() {
        Map<String, Map<String, Long>> split = NativeProfile.split(LINES,
                Map.of(24056L, "fewshot", 24091L, "executor", 24103L, "gateway", 23774L, "host"));
        assertEquals(Map.of("embedding (ONNX)", 2L, "Java code", 1L, "kernel", 1L, "JIT compiler", 1L), split.get("fewshot"));
        assertEquals(Map.of("GC", 2L, "JVM runtime, interpreter", 1L, "DuckDB", 1L, "libc, libstdc++", 1L, "Java code", 1L), split.get("executor"));
        assertEquals(Map.of("RocksDB", 1L, "compression", 1L), split.get("gateway"));
        assertEquals(Map.of("Java code", 1L), split.get("host"));
        assertEquals(4, split.size(), "the idle CPU (pid 0) and other processes are no part's");
    }

    @Test
    void shouldReportMillisecondsOfCpuPerQuestionLargestFirstAndTheServicesSum() {
        Map<String, Map<String, Long>> split = NativeProfile.split(LINES,
                Map.of(24056L, "fewshot", 24091L, "executor", 23774L, "host"));
        // 499 samples = one CPU-second; over 10 questions each sample is 1000 / 499 / 10 ms per question
        List<String> lines = NativeProfile.lines(split, 10, List.of("fewshot", "executor"));
        String fewshot = lines.stream().filter(l -> l.startsWith("fewshot")).findFirst().orElseThrow();
        assertTrue(fewshot.matches("fewshot +1\\.00  embedding \\(ONNX\\) 0\\.40, .*"), fewshot);
        String sum = lines.getLast();
        assertTrue(sum.matches("= the six services +2\\.20  .*"), "fewshot's 5 and executor's 6 samples, not the host's: " + sum);
        assertTrue(sum.contains("Java code 0.40") && sum.contains("GC 0.40"), sum);
    }

    @Test
    void shouldNameTheKindOfCodeFromTheBinaryAndTheThread() {
        assertEquals("JIT compiler", NativeProfile.category("C1 CompilerThre", "/x/libjvm.so"));
        assertEquals("Java code", NativeProfile.category("main", "[JIT] tid 42"));
        assertEquals("other native", NativeProfile.category("main", "/usr/lib/libnio.so"));
    }
}
