package dev.sqloop.generator;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.sqloop.common.Dialect;
import dev.sqloop.common.error.ErrorCategory;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Dialect repair guidance as data ({@code error-patterns.yaml}): an engine error, matched by regex, names the
 * constraint the SQL violated and the alternative approach in that dialect, and its error category.
 */
public final class ErrorPatternRegistry {
    public static final String RESOURCE = "/dev/sqloop/generator/error-patterns.yaml";

    /** One entry of the registry. */
    public record ErrorPattern(Pattern regex, ErrorCategory category, String constraint, String alternative) {
        public String guidance() {
            return constraint + " " + alternative;
        }
    }

    private record Entry(String pattern, String category, String constraint, String alternative) {}

    private final Map<Dialect, List<ErrorPattern>> patterns;

    public ErrorPatternRegistry(Map<Dialect, List<ErrorPattern>> patterns) {
        this.patterns = new EnumMap<>(Dialect.class);
        patterns.forEach((d, list) -> this.patterns.put(d, List.copyOf(list)));
    }

    /** The registry shipped with the service. */
    public static ErrorPatternRegistry load() {
        try (InputStream in = ErrorPatternRegistry.class.getResourceAsStream(RESOURCE)) {
            if (in == null) throw new IllegalStateException(RESOURCE + " is missing from the classpath");
            return parse(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + RESOURCE, e);
        }
    }

    static ErrorPatternRegistry parse(InputStream yaml) throws IOException {
        Map<String, List<Entry>> raw = new ObjectMapper(new YAMLFactory()).readValue(yaml, new TypeReference<>() {});
        Map<Dialect, List<ErrorPattern>> out = new EnumMap<>(Dialect.class);
        raw.forEach((dialect, entries) -> {
            List<ErrorPattern> list = new ArrayList<>();
            for (Entry e : entries) {
                list.add(new ErrorPattern(Pattern.compile(e.pattern(), Pattern.CASE_INSENSITIVE | Pattern.DOTALL),
                        ErrorCategory.fromWire(e.category()), e.constraint(), e.alternative()));
            }
            out.put(Dialect.fromWire(dialect), list);
        });
        if (out.containsKey(Dialect.TRINO) && !out.containsKey(Dialect.PRESTO)) out.put(Dialect.PRESTO, out.get(Dialect.TRINO));
        return new ErrorPatternRegistry(out);
    }

    /** The first pattern of this dialect matching the error text. */
    public Optional<ErrorPattern> match(Dialect dialect, String error) {
        if (error == null || error.isBlank()) return Optional.empty();
        return patterns.getOrDefault(dialect, List.of()).stream().filter(p -> p.regex().matcher(error).find()).findFirst();
    }

    public List<ErrorPattern> patterns(Dialect dialect) {
        return patterns.getOrDefault(dialect, List.of());
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("ErrorPatternRegistry[");
        patterns.forEach((d, l) -> sb.append(d.name().toLowerCase(Locale.ROOT)).append('=').append(l.size()).append(' '));
        return sb.append(']').toString();
    }
}
