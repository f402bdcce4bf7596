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
 */
public record Safeguards(String memoryLimit, int threads, String tempSize, String regex, String workMem, java.util.Set<String> functions) {
    public static final String DEFAULT_MEMORY_LIMIT = "1GB";
    /**
     * One: a query runs on the executor's thread that asked for it. The executor runs several questions' queries at once
     * ({@code _POOL_SIZE}), which already fills the cores; a second DuckDB thread per query only added a hand-off and a
     * wake-up to each (~1 ms of the executor's CPU per question in the CPU-bound bench, README: DuckDB's own threads).
     */
    public static final int DEFAULT_THREADS = 1;
    public static final String DEFAULT_TEMP_SIZE = "1GB";
    public static final String DEFAULT_WORK_MEM = "64MB";
    public static final Safeguards DEFAULTS = new Safeguards(DEFAULT_MEMORY_LIMIT, DEFAULT_THREADS, DEFAULT_TEMP_SIZE, "checked");

    public Safeguards {
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
    }

    public Safeguards(String memoryLimit, int threads, String tempSize, String regex) {
        this(memoryLimit, threads, tempSize, regex, null, null);
    }

    public Safeguards(String memoryLimit, int threads, String tempSize, String regex, String workMem) {
        this(memoryLimit, threads, tempSize, regex, workMem, null);
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
