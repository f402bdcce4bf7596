package dev.sqloop.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class KeyGuessesTest {
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    @Test
    void shouldLockAnAddressAfterTheMaximumOfWrongKeysUntilItsWindowEnds() {
        KeyGuesses g = new KeyGuesses();
        for (int i = 0; i < KeyGuesses.MAX_WRONG_KEYS - 1; i++) g.wrongKey("10.0.0.1", T0.plusSeconds(i));
        assertEquals(0, g.lockedFor("10.0.0.1", T0.plusSeconds(30)), "one short of the maximum: still open");
        g.wrongKey("10.0.0.1", T0.plusSeconds(30));
        assertEquals(30, g.lockedFor("10.0.0.1", T0.plusSeconds(30)), "locked until a minute after its first wrong key");
        assertEquals(0, g.lockedFor("10.0.0.2", T0.plusSeconds(30)), "another address is not");
        assertEquals(0, g.lockedFor("10.0.0.1", T0.plusSeconds(60)), "the window has passed");
        g.wrongKey("10.0.0.1", T0.plusSeconds(61));
        assertEquals(0, g.lockedFor("10.0.0.1", T0.plusSeconds(61)), "a new window starts from one");
    }

    @Test
    void shouldStayBoundedUnderManyAddressesDroppingExpiredWindowsFirst() {
        KeyGuesses g = new KeyGuesses();
        for (int i = 0; i < KeyGuesses.MAX_CLIENTS * 3; i++) g.wrongKey("addr-" + i, T0);
        assertTrue(g.clients() <= KeyGuesses.MAX_CLIENTS, "remembered: " + g.clients());
        g.wrongKey("late", T0.plusSeconds(61));
        assertEquals(1, g.clients(), "every expired window went before anything else");
    }
}
