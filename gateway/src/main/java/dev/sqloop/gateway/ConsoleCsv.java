package dev.sqloop.gateway;

import dev.sqloop.common.message.QuestionResult;
import java.util.List;

/**
 * A batch's results as CSV (RFC 4180) for a spreadsheet: one row per finished question. A cell a spreadsheet would
 * read as a formula (it starts with {@code = + - @}, a tab or a carriage return: a question is user text) is prefixed
 * with a quote mark, so opening the export never runs anything.
 */
final class ConsoleCsv {
    static final List<String> COLUMNS = List.of("question_id", "status", "reason", "attempts", "round", "error_category", "datasource",
            "question", "sql", "last_rejected_sql", "row_count", "input_tokens", "output_tokens", "submitted_at", "completed_at");
    static final String HEADER = String.join(",", COLUMNS) + "\r\n";

    private ConsoleCsv() {}

    static String line(QuestionResult r) {
        List<Object> cells = java.util.Arrays.asList(r.questionId(), r.status(), r.reason(), r.attempts(), r.round(),
                r.errorCategory() == null ? null : r.errorCategory().wireName(), r.datasource(), r.question(), r.sql(), r.lastRejectedSql(),
                r.execution() == null ? null : r.execution().rowCount(), r.usage().inputTokens(), r.usage().outputTokens(),
                r.submittedAt(), r.completedAt());
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < cells.size(); i++) {
            if (i > 0) b.append(',');
            b.append(cell(cells.get(i)));
        }
        return b.append("\r\n").toString();
    }

    static String cell(Object value) {
        if (value == null) return "";
        String s = value.toString();
        if (!s.isEmpty() && !(value instanceof Number) && "=+-@\t\r".indexOf(s.charAt(0)) >= 0) s = "'" + s;
        if (s.indexOf(',') < 0 && s.indexOf('"') < 0 && s.indexOf('\n') < 0 && s.indexOf('\r') < 0) return s;
        return '"' + s.replace("\"", "\"\"") + '"';
    }
}
