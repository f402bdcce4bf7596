package dev.sqloop.cli;

import dev.sqloop.common.runtime.DeadLetterReporter;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Option;

/**
 * Which dead letters a {@code dlq list} or {@code dlq replay} is about: every given criterion must hold (null = any).
 *
 * @param ids dead-letter ids ({@code --offset}, repeatable; {@code 17} or {@code P:17}); empty = any
 */
public record DeadLetterFilter(String stage, String reason, String topic, Instant since, Set<String> ids) {
    private static final Pattern AGO = Pattern.compile("(\\d+)\\s*(s|m|h|d)");
    private static final Pattern ID = Pattern.compile("(\\d+:)?\\d+");

    public DeadLetterFilter {
        ids = Set.copyOf(ids);
    }

    public static final DeadLetterFilter ANY = new DeadLetterFilter(null, null, null, null, Set.of());

    /** {@code --stage --reason --topic --since --offset}: the options of {@code dlq list} and {@code dlq replay}. */
    public static final class Options {
        @Option(names = "--stage", paramLabel = "S", description = "only those the stage S dead-lettered (executor, repair, ...)")
        String stage;
        @Option(names = "--reason", paramLabel = "R", description = "only those dead-lettered for R: undecodable, retries_exhausted, processing_failed, output_rejected")
        String reason;
        @Option(names = "--topic", paramLabel = "T", description = "only those read from topic T")
        String topic;
        @Option(names = "--since", paramLabel = "WHEN", description = "only those since an instant (2026-11-23T10:00:00Z) or a time ago (90s, 30m, 2h, 7d)")
        String since;
        @Option(names = "--offset", paramLabel = "N", description = "only this dead letter (repeatable): 17, or 2:17 on dlq partition 2")
        List<String> offsets = new ArrayList<>();

        /** The filter these options describe; {@code now} anchors a relative {@code --since 2h}. */
        public DeadLetterFilter filter(Instant now) {
            return from(stage, reason, topic, since, offsets, now);
        }
    }

    /** From {@code --stage --reason --topic --since --offset}; {@code now} anchors a relative {@code --since 2h}. */
    public static DeadLetterFilter from(String stage, String reason, String topic, String since, List<String> offsets, Instant now) {
        if (reason != null && !DeadLetterReporter.REASONS.contains(reason)) {
            throw new Args.UsageException("--reason must be one of " + String.join(", ", DeadLetterReporter.REASONS)
                    + ", was '" + reason + "'");
        }
        Set<String> ids = new LinkedHashSet<>();
        for (String id : offsets) ids.add(parseId(id));
        return new DeadLetterFilter(stage, reason, topic, since == null ? null : parseSince(since, now), ids);
    }

    /** {@code 2026-11-23T10:00:00Z} (an instant), or how long ago: {@code 90s}, {@code 30m}, {@code 2h}, {@code 7d}. */
    public static Instant parseSince(String value, Instant now) {
        Matcher m = AGO.matcher(value.trim().toLowerCase(Locale.ROOT));
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            Duration ago = switch (m.group(2)) {
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
            };
            return now.minus(ago);
        }
        try {
            return Instant.parse(value.trim());
        } catch (DateTimeParseException e) {
            throw new Args.UsageException("--since must be an instant like 2026-11-23T10:00:00Z or a time ago like 2h, 30m, 7d; was '"
                    + value + "'");
        }
    }

    /** A dead letter's id as the user wrote it: {@code 17}, or {@code 2:17} on dlq partition 2; {@code 0:17} is {@code 17}. */
    public static String parseId(String value) {
        String v = value.trim();
        if (!ID.matcher(v).matches()) throw new Args.UsageException("a dead letter is named by its dlq offset (17, or 2:17 on partition 2), was '" + value + "'");
        int colon = v.indexOf(':');
        if (colon < 0) return Long.toString(Long.parseLong(v));
        return DeadLetter.id(Integer.parseInt(v.substring(0, colon)), Long.parseLong(v.substring(colon + 1)));
    }

    public boolean matches(DeadLetter d) {
        return (stage == null || stage.equals(d.stage()))
                && (reason == null || reason.equals(d.reason()))
                && (topic == null || topic.equals(d.originalTopic()))
                && (since == null || !d.timestamp().isBefore(since))
                && (ids.isEmpty() || ids.contains(d.id()));
    }

    public List<DeadLetter> select(List<DeadLetter> all) {
        return all.stream().filter(this::matches).toList();
    }
}
