package dev.sqloop.testkit.engines;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class DefogQuestionsTest {

    @Test
    void shouldTakeTheFirstColumnChoiceAndRepeatItInGroupBy() {
        assertEquals("SELECT author.name, sum(x) FROM author GROUP BY author.name",
                DefogQuestions.firstAlternative("SELECT {author.name, author.aid}, sum(x) FROM author GROUP BY {}"));
    }

    @Test
    void shouldTakeTheFirstOfSeveralQueries() {
        assertEquals("SELECT a FROM t", DefogQuestions.firstAlternative("SELECT a FROM t;SELECT b FROM t;"));
    }

    @Test
    void shouldReadQuotedCsvFields() {
        List<List<String>> rows = DefogQuestions.parseCsv("q,query\n\"a, \"\"b\"\"\",\"SELECT 1;\nSELECT 2\"\nx,y\n");
        assertEquals(List.of(List.of("q", "query"), List.of("a, \"b\"", "SELECT 1;\nSELECT 2"), List.of("x", "y")), rows);
    }

    @Test
    void shouldLoadAllDevQuestions() {
        List<DefogQuestions.Question> qs = DefogQuestions.load();
        assertEquals(120, qs.size());
        for (DefogQuestions.Question q : qs) {
            assertTrue(DefogDatasets.DATABASES.contains(q.database()), q.database());
            assertFalse(q.firstGold().contains("{"), q.firstGold());
            assertFalse(q.firstGold().isBlank());
        }
    }
}
