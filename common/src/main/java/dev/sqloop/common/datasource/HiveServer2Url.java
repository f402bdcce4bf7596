package dev.sqloop.common.datasource;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Edits a HiveServer2 JDBC URL, {@code jdbc:hive2://host:port/db;session_vars?hive_conf#hive_vars}: hive-jdbc sends the
 * {@code hive_conf} part as settings of the session it opens, which HiveServer2 and the Spark Thrift Server apply before
 * the first statement.
 */
public final class HiveServer2Url {
    private HiveServer2Url() {}

    /** Adds {@code name=value} to the session-variable part unless the URL already sets it. */
    public static String withSessionVariable(String url, String name, String value) {
        int end = partsEnd(url);
        String head = url.substring(0, end);
        int authority = head.indexOf("//");
        if (authority >= 0 && head.indexOf('/', authority + 2) < 0) {
            // no database path: hive-jdbc reads whatever follows the authority as the database
            int semi = head.indexOf(';', authority + 2);
            head = semi < 0 ? head + "/" : head.substring(0, semi) + "/" + head.substring(semi);
        }
        for (String part : head.split(";")) {
            if (part.strip().toLowerCase(Locale.ROOT).startsWith(name.toLowerCase(Locale.ROOT) + "=")) return url;
        }
        return head + ";" + name + "=" + value + url.substring(end);
    }

    /**
     * Sets each of {@code settings} in the session-configuration part, replacing what the URL says for the same key:
     * these are sqloop's guarantees about the session, not defaults a URL may change.
     */
    public static String withConfiguration(String url, Map<String, String> settings) {
        int query = url.indexOf('?');
        int hash = url.indexOf('#');
        if (query > hash && hash >= 0) query = -1; // a '?' inside the variables part is not the configuration's
        String head = url.substring(0, query >= 0 ? query : hash >= 0 ? hash : url.length());
        String conf = query < 0 ? "" : url.substring(query + 1, hash >= 0 ? hash : url.length());
        String tail = hash >= 0 ? url.substring(hash) : "";
        Map<String, String> merged = new LinkedHashMap<>();
        for (String entry : conf.split(";")) {
            if (entry.isBlank()) continue;
            int eq = entry.indexOf('=');
            String key = (eq < 0 ? entry : entry.substring(0, eq)).strip();
            if (!settings.containsKey(key)) merged.put(key, eq < 0 ? "" : entry.substring(eq + 1));
        }
        merged.putAll(settings);
        StringBuilder out = new StringBuilder(head).append('?');
        merged.forEach((k, v) -> out.append(k).append('=').append(v).append(';'));
        out.setLength(out.length() - 1);
        return out.append(tail).toString();
    }

    private static int partsEnd(String url) {
        int end = url.length();
        for (char c : new char[] {'?', '#'}) {
            int i = url.indexOf(c);
            if (i >= 0) end = Math.min(end, i);
        }
        return end;
    }
}
