package dev.sqloop.common.message;

import java.util.List;

/**
 * The part of the datasource's schema linked to a question, computed once and reused by every attempt.
 *
 * @param whole the datasource's entire schema (it fit the linker's budget), the same for every question of the
 *     datasource: the prompt puts it in the prefix a provider caches; a linked subset differs per question and goes
 *     after that prefix. False in messages from before the flag (the safe reading: per question).
 */
public record LinkedSchema(List<Table> tables, boolean whole) {
    public LinkedSchema {
        tables = tables == null ? List.of() : List.copyOf(tables);
    }

    /** A subset linked to one question. */
    public LinkedSchema(List<Table> tables) {
        this(tables, false);
    }

    /** Sample values shown per column in a prompt. */
    public static final int MAX_SAMPLE_VALUES = 3;

    /**
     * The schema section of a prompt: {@code TABLE name -- description}, then one line per column with its type,
     * description and up to {@link #MAX_SAMPLE_VALUES} sample values. The linker sizes its budget on this text.
     */
    public String render() {
        StringBuilder s = new StringBuilder();
        for (Table t : tables) {
            s.append("TABLE ").append(t.name());
            if (t.description() != null && !t.description().isBlank()) s.append(" -- ").append(t.description());
            s.append('\n');
            for (Column c : t.columns()) {
                s.append("  ").append(c.name());
                if (c.type() != null) s.append(' ').append(c.type());
                if (c.description() != null && !c.description().isBlank()) s.append(" -- ").append(c.description());
                if (!c.sampleValues().isEmpty()) {
                    s.append(" (e.g. ").append(String.join(", ",
                            c.sampleValues().subList(0, Math.min(MAX_SAMPLE_VALUES, c.sampleValues().size())))).append(')');
                }
                s.append('\n');
            }
        }
        return s.toString();
    }

    /** A prompt text's size in LLM tokens, estimated as one token per four characters (the usual rule for English and SQL). */
    public static int estimateTokens(String text) {
        return text == null ? 0 : (text.length() + 3) / 4;
    }

    public record Table(String name, String description, List<Column> columns) {
        public Table {
            columns = columns == null ? List.of() : List.copyOf(columns);
        }
    }

    public record Column(String name, String type, String description, List<String> sampleValues) {
        public Column {
            sampleValues = sampleValues == null ? List.of() : List.copyOf(sampleValues);
        }
    }
}
