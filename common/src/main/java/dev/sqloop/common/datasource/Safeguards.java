package dev.sqloop.common.datasource;

import java.util.Locale;
import java.util.Objects;

/**
 * Per-datasource bounds on what one query may cost or do, beyond rows and time.
 *
 * @param memoryLimit DuckDB {@code memory_limit} of the database instance ({@code SQLOOP_DATASOURCE_<NAME>_MEMORY_LIMIT},
 *                    default {@value #DEFAULT_MEMORY_LIMIT}; DuckDB's own default is 80 % of RAM)
 * @param threads     DuckDB {@code threads} ({@code _THREADS}, default {@value #DEFAULT_THREADS})
 * @param tempSize    DuckDB {@code max_temp_directory_size} ({@code _TEMP_SIZE}, default {@value #DEFAULT_TEMP_SIZE};
 *                    the database is read-only, so spilling is the only use of the temp directory)
 * @param regex       Hive/Spark regular expressions ({@code _REGEX}): {@code checked} (default) refuses patterns that
 *                    backtrack without bound, {@code refused} every regex function, {@code allowed} none
 * @param workMem     PostgreSQL {@code work_mem} of the executor's sessions ({@code _WORK_MEM}, default
 *                    {@value #DEFAULT_WORK_MEM}): memory per sort or hash before it spills to temp files, which
 *                    {@code tempSize} bounds there as {@code temp_file_limit}
 * @param functions   functions added to the dialect's allow-list for this datasource ({@code _FUNCTIONS}: its
 *                    user-defined functions, lower case); a function the list refuses stays refused
 * @param isolation   where DuckDB runs a query ({@code _ISOLATION}): {@link #PROCESS} (default), a child process per
 *                    concurrent query with an OS memory cap, so a query allocating outside {@code memory_limit} costs
 *                    that process and never the executor; {@link #IN_PROCESS}, the executor's own JVM (tests, benchmarks)
 * @param processMemory the child process's address-space cap ({@code _PROCESS_MEMORY}, a size); null: {@code memoryLimit}
 *                    plus {@value #PROCESS_HEADROOM} ({@link #processMemoryBytes()})
 * @param cost        the engine's estimate a query may reach before it runs ({@code _MAX_SCAN_ROWS}, {@code _MAX_SCAN_BYTES},
 *                    {@code _MAX_COST}); {@link CostBudget#NONE} by default: no estimate is asked for
 */
public record Safeguards(String memoryLimit, int threads, String tempSize, String regex, String workMem,
                         java.util.Set<String> functions, String isolation, String processMemory, CostBudget cost) {
    public static final String DEFAULT_MEMORY_LIMIT = "1GB";
    /**
     * One: a query runs on the executor's thread that asked for it. The executor runs several questions' queries at once
     * ({@code _POOL_SIZE}), which already fills the cores; a second DuckDB thread per query only added a hand-off and a
     * wake-up to each (~1 ms of the executor's CPU per question in the CPU-bound bench, README: DuckDB's own threads).
     */
    public static final int DEFAULT_THREADS = 1;
    public static final String DEFAULT_TEMP_SIZE = "1GB";
    public static final String DEFAULT_WORK_MEM = "64MB";
    public static final String PROCESS = "process";
    public static final String IN_PROCESS = "in-process";
    /**
     * The child's address space beyond {@code memory_limit}: a child JVM with DuckDB open maps ~0.8 GiB before its
     * first query (JDK 25, DuckDB 2.0: the runtime image, a 256 MB heap reserved, DuckDB's library and threads; RSS
     * ~0.1 GB), and DuckDB's allocator maps ~0.4 GiB more than the buffers it counts against {@code memory_limit}.
     * The executor-service README shows the measurement.
     */
    public static final String PROCESS_HEADROOM = "1.25GiB";
    public static final Safeguards DEFAULTS = new Safeguards(DEFAULT_MEMORY_LIMIT, DEFAULT_THREADS, DEFAULT_TEMP_SIZE, "checked");

    public Safeguards {
        cost = cost == null ? CostBudget.NONE : cost;
        memoryLimit = size(memoryLimit, DEFAULT_MEMORY_LIMIT, "memory limit");
        tempSize = size(tempSize, DEFAULT_TEMP_SIZE, "temp size");
        workMem = size(workMem, DEFAULT_WORK_MEM, "work mem");
        functions = functions == null ? java.util.Set.of() : functions.stream().map(f -> f.strip().toLowerCase(Locale.ROOT))
                .filter(f -> !f.isEmpty()).collect(java.util.stream.Collectors.toUnmodifiableSet());
        for (String f : functions) {
            if (!f.matches("[a-z_][a-z0-9_]*")) throw new IllegalArgumentException("function names are letters, digits and _, was '" + f + "'");
        }
        if (threads < 1) throw new IllegalArgumentException("threads must be >= 1, was " + threads);
        regex = regex == null || regex.isBlank() ? "checked" : regex.trim().toLowerCase(Locale.ROOT);
        if (!java.util.Set.of("checked", "refused", "allowed").contains(regex)) {
            throw new IllegalArgumentException("regex must be checked, refused or allowed, was '" + regex + "'");
        }
        isolation = isolation == null || isolation.isBlank() ? PROCESS : isolation.trim().toLowerCase(Locale.ROOT);
        if (!isolation.equals(PROCESS) && !isolation.equals(IN_PROCESS)) {
            throw new IllegalArgumentException("isolation must be process or in-process, was '" + isolation + "'");
        }
        processMemory = processMemory == null || processMemory.isBlank() ? null : size(processMemory, null, "process memory");
        if (processMemory != null && bytes(processMemory) <= bytes(memoryLimit)) {
            throw new IllegalArgumentException("process memory (" + processMemory + ") must be larger than the memory limit ("
                    + memoryLimit + "): the child process holds DuckDB's buffers and a JVM");
        }
    }

    public Safeguards(String memoryLimit, int threads, String tempSize, String regex, String workMem,
                      java.util.Set<String> functions, String isolation, String processMemory) {
        this(memoryLimit, threads, tempSize, regex, workMem, functions, isolation, processMemory, CostBudget.NONE);
    }

    /** The caps as before isolation and the PostgreSQL settings were configurable: defaults for the rest. */
    public Safeguards(String memoryLimit, int threads, String tempSize, String regex) {
        this(memoryLimit, threads, tempSize, regex, null, null, PROCESS, null);
    }

    public Safeguards(String memoryLimit, int threads, String tempSize, String regex, String workMem) {
        this(memoryLimit, threads, tempSize, regex, workMem, null, PROCESS, null);
    }

    public Safeguards(String memoryLimit, int threads, String tempSize, String regex, String workMem, java.util.Set<String> functions) {
        this(memoryLimit, threads, tempSize, regex, workMem, functions, PROCESS, null);
    }

    public Safeguards withIsolation(String newIsolation, String newProcessMemory) {
        return new Safeguards(memoryLimit, threads, tempSize, regex, workMem, functions, newIsolation, newProcessMemory, cost);
    }

    public Safeguards withCost(CostBudget newCost) {
        return new Safeguards(memoryLimit, threads, tempSize, regex, workMem, functions, isolation, processMemory, newCost);
    }

    /** Whether DuckDB runs this datasource's queries in child processes ({@link #PROCESS}). */
    public boolean processIsolation() {
        return PROCESS.equals(isolation);
    }

    /** The child process's address-space cap in bytes: {@code processMemory}, else {@code memoryLimit} + headroom. */
    public long processMemoryBytes() {
        return processMemory != null ? bytes(processMemory) : bytes(memoryLimit) + bytes(PROCESS_HEADROOM);
    }
    /** Bytes in a size as DuckDB reads it: {@code KB}, {@code MB}… are powers of 1000, {@code KiB}, {@code MiB}… of 1024. */
    public static long bytes(String size) {
        String v = size.trim().toUpperCase(Locale.ROOT).replace(" ", "");
        int unitAt = 0;
        while (unitAt < v.length() && (Character.isDigit(v.charAt(unitAt)) || v.charAt(unitAt) == '.')) unitAt++;
        double n = Double.parseDouble(v.substring(0, unitAt));
        long unit = switch (v.substring(unitAt)) {
            case "B" -> 1L;
            case "KB" -> 1000L;
            case "MB" -> 1000L * 1000;
            case "GB" -> 1000L * 1000 * 1000;
            case "TB" -> 1000L * 1000 * 1000 * 1000;
            case "KIB" -> 1L << 10;
            case "MIB" -> 1L << 20;
            case "GIB" -> 1L << 30;
            case "TIB" -> 1L << 40;
            default -> throw new IllegalArgumentException("not a size: '" + size + "'");
        };
        return (long) (n * unit);
    }


    /** {@code size} (as {@link #size} accepts it) in whole kilobytes, PostgreSQL's unit for memory and file settings. */
    public static long kilobytes(String size) {
        String v = size.toUpperCase(Locale.ROOT);
        int unit = 0;
        while (unit < v.length() && (Character.isDigit(v.charAt(unit)) || v.charAt(unit) == '.')) unit++;
        double n = Double.parseDouble(v.substring(0, unit));
        double factor = switch (v.substring(unit)) {
            case "B" -> 1.0 / 1024;
            case "KB", "KIB" -> 1;
            case "MB", "MIB" -> 1024;
            case "GB", "GIB" -> 1024 * 1024;
            default -> 1024.0 * 1024 * 1024;
        };
        return Math.max(1, (long) Math.ceil(n * factor));
    }

    /** A DuckDB size such as {@code 512MB} or {@code 2GB}: digits and a unit, nothing that could smuggle SQL. */
    private static String size(String s, String fallback, String what) {
        if (s == null || s.isBlank()) return fallback;
        String v = s.trim().toUpperCase(Locale.ROOT).replace(" ", "");
        if (!v.matches("\\d+(\\.\\d+)?(B|KB|MB|GB|TB|KIB|MIB|GIB|TIB)")) {
            throw new IllegalArgumentException(what + " must look like 512MB or 2GB, was '" + s + "'");
        }
        return Objects.requireNonNull(v);
    }
}
