package dev.sqloop.testkit.llm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The index finds what the scan finds: the longest known question a prompt contains. */
class QuestionsTest {
    private static final List<String> KNOWN = List.of("How many orders?", "How many orders per customer?",
            "How many orders per customer in 1995?", "Top 5 parts", "List the suppliers in  EUROPE", "x", "Which nations (#12)",
            "Which nations (#123)");

    @Test
    void shouldFindTheLongestKnownQuestionInAPrompt() {
        Questions.Index index = new Questions.Index(KNOWN);
        assertEquals("How many orders per customer in 1995?",
                index.identify("Question: \"how many orders per customer in 1995?\"\nSchema: ..."));
        assertEquals("How many orders per customer?", index.identify("### Question\nHow many  orders per customer?\n### SQL"));
        assertEquals("List the suppliers in  EUROPE", index.identify("list the suppliers in\n\teurope please"));
        assertEquals("Which nations (#123)", index.identify("Which nations (#123) are there"));
        assertEquals("Which nations (#12)", index.identify("Which nations (#12) are there"));
        assertNull(new Questions.Index(List.of("Top 5 parts by revenue")).identify("nothing known here"));
    }

    @Test
    void shouldAgreeWithTheScanOnRandomPrompts() {
        Random random = new Random(11);
        List<String> known = new ArrayList<>(KNOWN);
        for (int i = 0; i < 300; i++) known.add("What is question number " + random.nextInt(1000) + (random.nextBoolean() ? " of the batch" : ""));
        Questions.Index index = new Questions.Index(known);
        for (int i = 0; i < 2_000; i++) {
            StringBuilder prompt = new StringBuilder();
            for (int part = 0; part < 3; part++) {
                prompt.append(random.nextBoolean() ? known.get(random.nextInt(known.size())) : "some words " + random.nextInt(50));
                prompt.append(random.nextBoolean() ? "\n" : " ");
            }
            String text = random.nextBoolean() ? prompt.toString().toUpperCase() : prompt.toString();
            assertEquals(Questions.identify(known, text), index.identify(text), text);
        }
    }
}
