package dev.sqloop.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.Random;
import org.junit.jupiter.api.Test;

class WhitespaceTest {
    @Test
    void collapsesLikeTheRegularExpression() {
        String alphabet = "ab \t\n\u000B\f\r\u00a0;";
        Random random = new Random(3);
        for (int round = 0; round < 50_000; round++) {
            StringBuilder s = new StringBuilder();
            for (int i = random.nextInt(12); i > 0; i--) s.append(alphabet.charAt(random.nextInt(alphabet.length())));
            String text = s.toString();
            assertEquals(text.replaceAll("\\s+", " "), Whitespace.collapse(text), "[" + text + "]");
            assertEquals(text.replaceAll("\\s+", " ").strip(), Whitespace.oneLine(text), "[" + text + "]");
        }
    }

    @Test
    void returnsTextWithNothingToFoldAsItIs() {
        String text = "select a from t where b = 'x y'";
        assertSame(text, Whitespace.collapse(text));
        assertEquals("select a from t", Whitespace.collapse("select\n  a\tfrom t"));
    }
}
