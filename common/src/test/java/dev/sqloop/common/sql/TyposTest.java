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
                int full = fullTable(a, b);
                assertEquals(full, Typos.distance(a, b), a + " / " + b);
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
            int full = fullTable(a, b);
            assertEquals(full, Typos.distance(a, b), a + " / " + b);
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

    /** The reference: optimal-string-alignment distance over the whole table, no band, no early exit. */
    private static int fullTable(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) d[i][0] = i;
        for (int j = 0; j <= b.length(); j++) d[0][j] = j;
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }
}
