package dev.sqloop.ops;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The metrics contract ({@code helm/sqloop/files/METRICS.md}) as the set of series names Prometheus may show,
 * and the metric names a PromQL expression references.
 */
final class Contract {
    /** A table row whose first cell is a backticked metric name and second its type. */
    private static final Pattern ROW = Pattern.compile("^\\|\\s*`([a-zA-Z_:][a-zA-Z0-9_:]*)`\\s*\\|\\s*(counter|gauge|histogram|summary)\\s*\\|",
            Pattern.MULTILINE);
    private static final Set<String> KEYWORDS = Set.of("by", "without", "on", "ignoring", "group_left", "group_right",
            "bool", "and", "or", "unless", "offset", "atan2", "inf", "nan", "e");

    private Contract() {}

    /** Every series name the contract allows: counters and gauges as written, histograms and summaries with their suffixes. */
    static Set<String> seriesNames() throws IOException {
        String md = Files.readString(Repo.chart().resolve("files/METRICS.md"));
        Set<String> out = new TreeSet<>();
        Matcher m = ROW.matcher(md);
        while (m.find()) {
            String name = m.group(1);
            switch (m.group(2)) {
                case "histogram" -> List.of("_bucket", "_sum", "_count", "_max").forEach(s -> out.add(name + s));
                case "summary" -> List.of("_sum", "_count", "_max").forEach(s -> out.add(name + s));
                default -> out.add(name);
            }
        }
        if (out.size() < 30) throw new IllegalStateException("METRICS.md lists only " + out + ": table format changed?");
        return out;
    }

    /** Names the recording rules define (dashboards and alerts may use them). */
    static Set<String> recordedNames() throws IOException {
        Set<String> out = new TreeSet<>();
        for (JsonNode rule : Rules.allRules()) if (rule.has("record")) out.add(rule.get("record").asText());
        return out;
    }

    /**
     * The metric names a PromQL expression references: identifiers outside strings, label matchers, ranges and
     * grouping clauses, that are neither functions (followed by "("), keywords nor Grafana variables.
     */
    static Set<String> metricNames(String promql) {
        String s = promql;
        s = s.replaceAll("\"(?:[^\"\\\\]|\\\\.)*\"", "\"\"");           // string literals
        s = s.replaceAll("\\$\\{[^}]*}|\\$[A-Za-z_][A-Za-z0-9_]*", "1");  // Grafana variables
        s = s.replaceAll("\\{[^}]*}", "");                                // label matchers
        s = s.replaceAll("\\[[^]]*]", "");                                // ranges, subqueries
        s = s.replaceAll("(?i)\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)", " ");
        Set<String> out = new LinkedHashSet<>();
        Matcher m = Pattern.compile("(?<![\\w.:])([a-zA-Z_:][a-zA-Z0-9_:]*)(\\s*\\()?").matcher(s);
        while (m.find()) {
            String id = m.group(1);
            if (m.group(2) != null || KEYWORDS.contains(id.toLowerCase())) continue;
            out.add(id);
        }
        return out;
    }

    static List<Path> files(Path dir, String glob) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            var matcher = dir.getFileSystem().getPathMatcher("glob:" + glob);
            return s.filter(p -> matcher.matches(p.getFileName())).sorted().toList();
        }
    }
}
