package dev.sqloop.common.message;

import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import java.util.List;

/**
 * The part of the datasource's schema linked to a question, computed once and reused by every attempt.
 *
 * <p>It is most of a task's bytes (a few KB against ~1.5 KB for the rest) and only the generator and the repair
 * worker read it; the validator, the executor and every other hop pass it on. So a schema read from a message keeps
 * the JSON it came in and is written back as those bytes, its tables read only when asked for
 * ({@link LinkedSchemaJson}); the wire form is the same JSON object either way.
 */
@JsonSerialize(using = LinkedSchemaJson.Writer.class)
@JsonDeserialize(using = LinkedSchemaJson.Reader.class)
public final class LinkedSchema {
    /** The JSON this schema was read from (checked to have the schema's shape), written back as is; null when built. */
    private final byte[] json;
    private volatile List<Table> tables;

    public LinkedSchema(List<Table> tables) {
        this.json = null;
        this.tables = tables == null ? List.of() : List.copyOf(tables);
    }

    private LinkedSchema(byte[] json) {
        this.json = json;
    }

    /** A schema over JSON that {@link LinkedSchemaJson} has checked; its tables are read on first use. */
    static LinkedSchema ofCheckedJson(byte[] json) {
        return new LinkedSchema(json);
    }

    /** The JSON it was read from, or null when it was built in this process. */
    byte[] json() {
        return json;
    }

    public List<Table> tables() {
        List<Table> t = tables;
        if (t == null) {
            t = LinkedSchemaJson.tables(json);
            tables = t;
        }
        return t;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LinkedSchema other && tables().equals(other.tables());
    }

    @Override
    public int hashCode() {
        return tables().hashCode();
    }

    @Override
    public String toString() {
        return "LinkedSchema[tables=" + tables() + "]";
    }

    /** Sample values shown per column in a prompt. */
    public static final int MAX_SAMPLE_VALUES = 3;

    /**
     * The schema section of a prompt: {@code TABLE name -- description}, then one line per column with its type,
     * description and up to {@link #MAX_SAMPLE_VALUES} sample values. The linker sizes its budget on this text.
     */
    public String render() {
        StringBuilder s = new StringBuilder();
        for (Table t : tables()) {
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

    /** @param description "" when there is none (the wire form leaves it out) */
    public record Table(String name, String description, List<Column> columns) {
        public Table {
            description = description == null ? "" : description;
            columns = columns == null ? List.of() : List.copyOf(columns);
        }
    }

    /** @param description "" when there is none (the wire form leaves it out, as it does an empty sample list) */
    public record Column(String name, String type, String description, List<String> sampleValues) {
        public Column {
            description = description == null ? "" : description;
            sampleValues = sampleValues == null ? List.of() : List.copyOf(sampleValues);
        }
    }
}
