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
}
