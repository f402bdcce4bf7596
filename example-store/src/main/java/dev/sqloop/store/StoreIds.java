package dev.sqloop.store;

import dev.sqloop.common.Whitespace;
import dev.sqloop.common.message.ExampleIds;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

/** The ids both stores give what they hold: upserting the same thing again replaces it. */
final class StoreIds {
    private StoreIds() {}

    /**
     * The id of {@code owner}'s example of a question in a datasource, the shared one when {@code owner} is null (the
     * gateway derives the same id from the same normalization).
     */
    static UUID exampleId(String datasource, String question, String owner) {
        return ExampleIds.of(datasource, question, owner);
    }

    static UUID exampleId(StoredExample e) {
        return exampleId(e.datasource(), e.question(), e.owner());
    }

    /** The id of an error→fix pair: the same error fixed the same way is stored once. */
    static UUID fixId(String datasource, String errorText, String fixedSql) {
        return UUID.nameUUIDFromBytes(("fix\u0000" + datasource + "\u0000" + ExampleIds.normalize(errorText) + "\u0000"
                + Whitespace.collapse(fixedSql.strip())).getBytes(StandardCharsets.UTF_8));
    }
}
