package dev.sqloop.embedded.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EvalCaseTest {
    @Test
    void shouldReadTheThreeDatasetFormatsAndNameWhatIsMissing(@TempDir Path dir) throws IOException {
        Path csv = Files.writeString(dir.resolve("q.csv"), "question,query,db_name,query_category\n"
                + "How many?,SELECT count(*) FROM t,shop,count\n");
        Path jsonl = Files.writeString(dir.resolve("q.jsonl"), "{\"id\":\"a\",\"question\":\"Top?\",\"gold_sql\":\"SELECT 1\"}\n");
        Path yaml = Files.writeString(dir.resolve("q.yaml"), "cases:\n  - id: c1\n    question: Who?\n    expected_sql: SELECT 2\n    tags: [lookup]\n");
        assertEquals(new EvalCase("q1", "How many?", "SELECT count(*) FROM t", "sales", "count"),
                EvalCase.load(csv, Map.of("shop", "sales"), null).getFirst());
        assertEquals(new EvalCase("a", "Top?", "SELECT 1", "dw", "uncategorized"), EvalCase.load(jsonl, Map.of(), "dw").getFirst());
        assertEquals(new EvalCase("c1", "Who?", "SELECT 2", "dw", "lookup"), EvalCase.load(yaml, Map.of(), "dw").getFirst());
        // what the asker says with the question is kept as its instructions: defog's column, JSONL's field, a YAML case's notes
        Path defog = Files.writeString(dir.resolve("d.csv"), "question,query,db_name,query_category,instructions\n"
                + "Who?,SELECT 1,shop,names,Always filter names using ILIKE\nHow many?,SELECT 2,shop,count,\n");
        assertEquals(List.of("Always filter names using ILIKE", "none"), EvalCase.load(defog, Map.of(), null).stream()
                .map(c -> c.instructions() == null ? "none" : c.instructions()).toList());
        Path withNotes = Files.writeString(dir.resolve("n.yaml"), "cases:\n  - id: c1\n    question: Who?\n    expected_sql: SELECT 2\n"
                + "    notes: count each order once\n");
        assertEquals("count each order once", EvalCase.load(withNotes, Map.of(), "dw").getFirst().instructions());
        Path jsonlWith = Files.writeString(dir.resolve("i.jsonl"), "{\"question\":\"Top?\",\"gold_sql\":\"SELECT 1\",\"instructions\":\"top 5\"}\n");
        assertEquals("top 5", EvalCase.load(jsonlWith, Map.of(), "dw").getFirst().instructions());
        IOException e = assertThrows(IOException.class, () -> EvalCase.load(jsonl, Map.of(), null));
        assertEquals("q.jsonl row 1: no datasource (give the row one, or --datasource NAME)", e.getMessage());
    }
}
