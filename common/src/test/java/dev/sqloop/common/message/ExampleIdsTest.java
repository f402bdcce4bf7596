package dev.sqloop.common.message;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import org.junit.jupiter.api.Test;

class ExampleIdsTest {
    @Test
    void normalizeFoldsCaseAccentsPunctuationAndSpaces() {
        assertEquals("how many orders", ExampleIds.normalize("How many  Orders?"));
        assertEquals("cafe revenue in 2.5 years", ExampleIds.normalize("Café revenue in 2.5 years."));
        assertEquals("o'brien's orders with 10% discount", ExampleIds.normalize("O'Brien's orders,\twith 10% discount!"));
        assertEquals("top_5 customers", ExampleIds.normalize("  top_5 customers...  "));
        assertEquals("", ExampleIds.normalize(null));
        assertEquals("", ExampleIds.normalize(" ?! "));
    }

    @Test
    void idsFollowTheNormalizedQuestionAndTheOwner() {
        assertEquals(ExampleIds.of("demo", "How many orders?"), ExampleIds.of("demo", "how many ORDERS"));
        assertNotEquals(ExampleIds.of("demo", "How many orders?"), ExampleIds.of("other", "How many orders?"));
        assertEquals(ExampleIds.of("demo", "q"), ExampleIds.of("demo", "q", null));
        assertNotEquals(ExampleIds.of("demo", "q"), ExampleIds.of("demo", "q", "acme"));
        assertEquals(ExampleIds.DEFAULT_TENANT, ExampleIds.owner(" "));
    }

    @Test
    void theAsciiPassIsTheDefinitionForAsciiAndStepsAsideForAnythingElse() {
        String alphabet = "aZ9_%.'- \t?!,;()\"*/\n\u0000";
        java.util.Random random = new java.util.Random(11);
        for (int round = 0; round < 50_000; round++) {
            StringBuilder s = new StringBuilder();
            for (int i = random.nextInt(16); i > 0; i--) s.append(alphabet.charAt(random.nextInt(alphabet.length())));
            String text = s.toString();
            assertEquals(ExampleIds.normalizeText(text), ExampleIds.normalizeAscii(text), "[" + text + "]");
        }
        assertEquals(null, ExampleIds.normalizeAscii("Café"));
        assertEquals(null, ExampleIds.normalizeAscii("orders ?\u00a0"));
        assertEquals("cafe orders", ExampleIds.normalize("Café orders"));
    }
}
