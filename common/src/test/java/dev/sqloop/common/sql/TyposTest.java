package dev.sqloop.common.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class TyposTest {

    @Test
    void shouldCountATranspositionAsOneEdit() {
        assertEquals(1, Typos.distance("shiped", "shipped"));
        assertEquals(1, Typos.distance("form", "from"));
        assertEquals(0, Typos.distance("region", "region"));
        assertEquals(3, Typos.distance("kitten", "sitting"));
    }

    @Test
    void shouldAgreeWithTheFullDistanceUpToTheBoundAndCapBeyondIt() {
        String[] words = {"book", "books", "bok", "shipped", "shiped", "order_status", "status", "region", "regoin", "", "a"};
        for (String a : words) {
            for (String b : words) {
                int full = Typos.distance(a, b);
                for (int max = 0; max <= 3; max++) {
                    assertEquals(Math.min(full, max + 1), Typos.distanceAtMost(a, b, max), a + " / " + b + " within " + max);
                }
            }
        }
    }

    @Test
    void shouldAgreeWithTheFullDistanceOnRandomNearAndFarStrings() {
        java.util.Random random = new java.util.Random(7);
        for (int round = 0; round < 20_000; round++) {
            String a = randomWord(random);
            // half the pairs are a few edits apart (the band matters), half unrelated
            String b = random.nextBoolean() ? edit(a, random.nextInt(4), random) : randomWord(random);
            int full = Typos.distance(a, b);
            for (int max = 0; max <= 3; max++) {
                assertEquals(Math.min(full, max + 1), Typos.distanceAtMost(a, b, max), a + " / " + b + " within " + max);
            }
        }
    }

    private static String randomWord(java.util.Random random) {
        StringBuilder s = new StringBuilder();
        for (int i = random.nextInt(12); i > 0; i--) s.append((char) ('a' + random.nextInt(4)));
        return s.toString();
    }

    private static String edit(String word, int edits, java.util.Random random) {
        StringBuilder s = new StringBuilder(word);
        for (int e = 0; e < edits; e++) {
            int at = s.isEmpty() ? 0 : random.nextInt(s.length());
            switch (random.nextInt(4)) {
                case 0 -> s.insert(at, (char) ('a' + random.nextInt(4)));
                case 1 -> { if (!s.isEmpty()) s.deleteCharAt(at); }
                case 2 -> { if (!s.isEmpty()) s.setCharAt(at, (char) ('a' + random.nextInt(4))); }
                default -> {
                    if (at + 1 < s.length()) {
                        char c = s.charAt(at);
                        s.setCharAt(at, s.charAt(at + 1));
                        s.setCharAt(at + 1, c);
                    }
                }
            }
        }
        return s.toString();
    }
}
