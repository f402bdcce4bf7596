package dev.sqloop.common.config;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Typed reads of {@code SQLOOP_*} settings from an environment map. Every failure names the variable.
 * Services pass {@code System.getenv()}; tests pass {@code Map.of(...)} and never mutate the environment.
 */
public final class EnvConfig {
    private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h)?");
    private static final Pattern SECRET = Pattern.compile("(?i).*(PASSWORD|SECRET|TOKEN|API_KEY|APIKEY|CREDENTIAL|JAAS|PRIVATE).*");

    private final Map<String, String> env;

    public EnvConfig(Map<String, String> env) {
        this.env = Map.copyOf(env);
    }

    public Map<String, String> raw() {
        return env;
    }

    public String required(String name) {
        String v = env.get(name);
        if (v == null || v.isBlank()) throw new ConfigException(name + " is required but not set");
        return v.trim();
    }

    public String string(String name, String fallback) {
        String v = env.get(name);
        return v == null || v.isBlank() ? fallback : v.trim();
    }

    public int integer(String name, int fallback, int min, int max) {
        String v = env.get(name);
        if (v == null || v.isBlank()) return fallback;
        try {
            int parsed = Integer.parseInt(v.trim());
            if (parsed < min || parsed > max) {
                throw new ConfigException(name + " must be between " + min + " and " + max + ", was " + parsed);
            }
            return parsed;
        } catch (NumberFormatException e) {
            throw new ConfigException(name + " must be an integer, was '" + v + "'");
        }
    }

    public double decimal(String name, double fallback) {
        String v = env.get(name);
        if (v == null || v.isBlank()) return fallback;
        try {
            return Double.parseDouble(v.trim());
        } catch (NumberFormatException e) {
            throw new ConfigException(name + " must be a number, was '" + v + "'");
        }
    }

    public boolean bool(String name, boolean fallback) {
        String v = env.get(name);
        if (v == null || v.isBlank()) return fallback;
        return switch (v.trim().toLowerCase(Locale.ROOT)) {
            case "true", "yes", "1", "on" -> true;
            case "false", "no", "0", "off" -> false;
            default -> throw new ConfigException(name + " must be true or false, was '" + v + "'");
        };
    }

    /** Durations as {@code 250ms}, {@code 30s}, {@code 5m}, {@code 1h}; a bare number is milliseconds. */
    public Duration duration(String name, Duration fallback) {
        String v = env.get(name);
        if (v == null || v.isBlank()) return fallback;
        Matcher m = DURATION.matcher(v.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) throw new ConfigException(name + " must be a duration like 250ms, 30s or 5m, was '" + v + "'");
        long n = Long.parseLong(m.group(1));
        String unit = m.group(2) == null ? "ms" : m.group(2);
        return switch (unit) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            default -> Duration.ofHours(n);
        };
    }

    /**
     * Settings under a prefix with the prefix removed, lower-cased, underscores as dots:
     * {@code SQLOOP_KAFKA_SASL_MECHANISM=PLAIN} → {@code sasl.mechanism=PLAIN}.
     */
    public Map<String, String> prefixed(String prefix) {
        Map<String, String> out = new TreeMap<>();
        env.forEach((k, v) -> {
            if (k.startsWith(prefix) && k.length() > prefix.length()) {
                out.put(k.substring(prefix.length()).toLowerCase(Locale.ROOT).replace('_', '.'), v);
            }
        });
        return out;
    }

    public static boolean isSecret(String name) {
        return SECRET.matcher(name).matches();
    }

    /** The {@code SQLOOP_*} settings for the startup log, secrets masked. */
    public Map<String, String> describe() {
        Map<String, String> out = new TreeMap<>();
        env.forEach((k, v) -> {
            if (k.startsWith("SQLOOP_")) out.put(k, isSecret(k) ? "****" : v);
        });
        return out;
    }
}
