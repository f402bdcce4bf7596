package dev.sqloop.fewshot;

import dev.sqloop.store.ChromaClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Question→SQL pairs kept in an existing Chroma collection, as agents that store their few-shot examples in Chroma keep
 * them (the question as the record's document, its SQL in a metadata field): read a page at a time, nothing written.
 * Where each part is is configurable: the question in the document or a metadata field, the SQL in a metadata field,
 * the datasource in a metadata field or the one given for all.
 */
public final class ChromaPairs {
    private static final int PAGE = 500;

    /**
     * Where a record keeps its parts.
     *
     * @param questionField metadata field of the question; null: the record's document
     * @param sqlField metadata field of the SQL
     * @param datasourceField metadata field naming the datasource; null: every record is for the default datasource
     */
    public record Fields(String questionField, String sqlField, String datasourceField) {
        /** The question in the document, the SQL in metadata {@code sql}. */
        public static Fields defaults() {
            return new Fields(null, "sql", null);
        }
    }

    /** One record read: its id (for messages) and the pair. */
    public record Pair(String id, ExampleSeeder.Row row) {}

    private ChromaPairs() {}

    /**
     * Every record of {@code collection} as a pair, in Chroma's order; a part a record lacks is null (the seeder counts
     * such a record as one without SQL). Fails, naming the collection and database, when there is no such collection.
     */
    public static List<Pair> read(ChromaClient client, String collection, Fields fields, String defaultDatasource) {
        ChromaClient.Collection c = client.collection(collection).orElseThrow(() -> new IllegalArgumentException(
                "Chroma at " + client.url() + " has no collection " + collection + " in that tenant and database"));
        List<Pair> pairs = new ArrayList<>();
        for (int offset = 0; ; offset += PAGE) {
            ChromaClient.Records r = client.get(c.id(), null, null, PAGE, offset, true);
            for (int i = 0; i < r.size(); i++) {
                Map<String, Object> m = r.metadatas().get(i);
                String question = fields.questionField() == null ? r.documents().get(i) : text(m, fields.questionField());
                String datasource = fields.datasourceField() == null ? defaultDatasource : firstNonBlank(text(m, fields.datasourceField()), defaultDatasource);
                pairs.add(new Pair(r.ids().get(i), new ExampleSeeder.Row(datasource, question, text(m, fields.sqlField()))));
            }
            if (r.size() < PAGE) return pairs;
        }
    }

    private static String text(Map<String, Object> m, String field) {
        Object v = m.get(field);
        return v == null ? null : v.toString();
    }

    private static String firstNonBlank(String a, String b) {
        return a != null && !a.isBlank() ? a : b;
    }
}
