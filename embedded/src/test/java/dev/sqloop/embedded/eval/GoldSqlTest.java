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

class GoldSqlTest {
    @Test
    void shouldExpandColumnChoicesAndAcceptEveryQuery() {
        assertEquals(List.of("SELECT a FROM t", "SELECT b FROM t"), GoldSql.forms("SELECT {a, b} FROM t"));
        assertEquals(List.of("SELECT id FROM t GROUP BY id", "SELECT name FROM t GROUP BY name"),
                GoldSql.forms("SELECT {id,name} FROM t GROUP BY {}"), "{} repeats the choice made before it");
        assertEquals(List.of("SELECT a, c", "SELECT a, d", "SELECT b, c", "SELECT b, d"), GoldSql.forms("SELECT {a,b}, {c,d}"));
        assertEquals(List.of("SELECT 1", "SELECT ';' AS x"), GoldSql.forms("SELECT 1; SELECT ';' AS x;"));
        assertEquals("SELECT a FROM t", GoldSql.first("SELECT {a,b} FROM t"));
    }

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
        IOException e = assertThrows(IOException.class, () -> EvalCase.load(jsonl, Map.of(), null));
        assertEquals("q.jsonl row 1: no datasource (give the row one, or --datasource NAME)", e.getMessage());
    }
}
