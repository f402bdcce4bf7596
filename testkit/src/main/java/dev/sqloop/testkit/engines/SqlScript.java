package dev.sqloop.testkit.engines;

import java.util.ArrayList;
import java.util.List;
import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.statement.create.table.CreateTable;

/** Splits a PostgreSQL script into statements at top-level semicolons (outside quotes, comments and dollar quotes). */
public final class SqlScript {
    private SqlScript() {}

    /** The script's {@code CREATE TABLE} statements as JSqlParser reads them, in order; other and unreadable statements left out. */
    public static List<CreateTable> createTables(String script) {
        List<CreateTable> out = new ArrayList<>();
        for (String source : split(script)) {
            try {
                if (CCJSqlParserUtil.parse(source) instanceof CreateTable c) out.add(c);
            } catch (JSQLParserException e) {
                // not a statement JSqlParser reads: not a table of the script
            }
        }
        return out;
    }

    public static List<String> split(String script) {
        List<String> out = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        int n = script.length();
        int i = 0;
        while (i < n) {
            char c = script.charAt(i);
            int next;
            if (c == '-' && i + 1 < n && script.charAt(i + 1) == '-') {
                int nl = script.indexOf('\n', i);
                next = nl < 0 ? n : nl; // comments are dropped, the newline kept
                i = next;
                continue;
            } else if (c == '/' && i + 1 < n && script.charAt(i + 1) == '*') {
                int close = script.indexOf("*/", i + 2);
                i = close < 0 ? n : close + 2;
                continue;
            } else if (c == '\'' || c == '"') {
                next = i + 1;
                while (next < n) {
                    if (script.charAt(next) == c) {
                        if (next + 1 < n && script.charAt(next + 1) == c) next += 2;
                        else break;
                    } else {
                        next++;
                    }
                }
                next = Math.min(n, next + 1);
            } else if (c == '$' && i + 1 < n && script.charAt(i + 1) == '$') {
                int close = script.indexOf("$$", i + 2);
                next = close < 0 ? n : close + 2;
            } else if (c == ';') {
                add(out, current);
                current.setLength(0);
                i++;
                continue;
            } else {
                next = i + 1;
            }
            current.append(script, i, next);
            i = next;
        }
        add(out, current);
        return out;
    }

    private static void add(List<String> out, StringBuilder statement) {
        String s = statement.toString().strip();
        if (!s.isEmpty()) out.add(s);
    }
}
