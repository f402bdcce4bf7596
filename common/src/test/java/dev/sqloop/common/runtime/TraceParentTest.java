package dev.sqloop.common.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class TraceParentTest {
    private static final String FORMAT = "00-[0-9a-f]{32}-[0-9a-f]{16}-01";

    @Test
    void shouldKeepTheTraceIdAndChangeTheSpanId() {
        String parent = TraceParent.newTrace();
        String child = TraceParent.child(parent);
        assertTrue(child.matches(FORMAT), child);
        assertEquals(parent.substring(0, 36), child.substring(0, 36), "same trace id");
        assertNotEquals(parent.substring(36, 52), child.substring(36, 52), "new span id");
    }

    @Test
    void shouldStartANewTraceWhenTheParentIsMissingOrMalformed() {
        assertTrue(TraceParent.child(null).matches(FORMAT));
        assertTrue(TraceParent.child("garbage").matches(FORMAT));
    }
}
