package dev.sqloop.ops;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The {@code SQLOOP_*} settings the services read, found in their main sources (string literals): exact names,
 * and prefixes (literals ending in "_") whose remainder is itself a literal (e.g. {@code SQLOOP_VALIDATOR_} +
 * {@code "ALLOWED_SCHEMAS"}), ends in a setting literal ({@code SQLOOP_DATASOURCE_<NAME>} + {@code "_URL"}), or is
 * free by design (Kafka client settings, per-datasource schema URLs).
 */
final class SqloopSettings {
    private static final Set<String> OPEN_PREFIXES = Set.of("SQLOOP_KAFKA_", "SQLOOP_FEWSHOT_SCHEMA_JDBC_");
    private static final Pattern LITERAL = Pattern.compile("\"([A-Za-z0-9_]+)\"");

    private final Set<String> exact = new TreeSet<>();
    private final Set<String> prefixes = new TreeSet<>();
    private final Set<String> literals = new TreeSet<>();

    private SqloopSettings() {}

    static SqloopSettings fromSources() {
        SqloopSettings s = new SqloopSettings();
        try (Stream<Path> files = Files.walk(Repo.root())) {
            files.filter(p -> p.toString().endsWith(".java") && p.toString().contains("/src/main/java/"))
                    .filter(p -> !Repo.root().relativize(p).startsWith("testkit") && !Repo.root().relativize(p).startsWith("engines"))
                    .forEach(p -> {
                        try {
                            Matcher m = LITERAL.matcher(Files.readString(p));
                            while (m.find()) {
                                String lit = m.group(1);
                                s.literals.add(lit);
                                if (lit.startsWith("SQLOOP_")) (lit.endsWith("_") ? s.prefixes : s.exact).add(lit);
                            }
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (s.exact.size() < 40) throw new IllegalStateException("found only " + s.exact + " in the sources");
        return s;
    }

    /** Whether a service reads this variable. */
    boolean reads(String name) {
        if (exact.contains(name)) return true;
        for (String p : prefixes) {
            if (!name.startsWith(p) || name.length() == p.length()) continue;
            String rest = name.substring(p.length());
            if (OPEN_PREFIXES.contains(p) || literals.contains(rest)) return true;
            for (String lit : literals) {
                // SQLOOP_DATASOURCE_<NAME>_URL: the remainder ends in a setting literal "_URL", with a name before it
                if (lit.startsWith("_") && rest.endsWith(lit) && rest.length() > lit.length()) return true;
                if (lit.equals("_PROPERTY_") && rest.indexOf(lit) > 0) return true;
            }
        }
        return false;
    }
}
