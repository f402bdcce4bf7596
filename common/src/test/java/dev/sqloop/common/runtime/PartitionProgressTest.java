package dev.sqloop.common.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class PartitionProgressTest {

    @Test
    void shouldNeverCommitPastAnUnfinishedRecord() {
        PartitionProgress p = new PartitionProgress();
        for (long o = 10; o < 15; o++) p.track(o);
        p.complete(11);
        p.complete(12);
        p.complete(14);
        assertEquals(10, p.committable(), "10 is still running: nothing past it may be committed");
        p.committed(10);
        p.complete(10);
        assertEquals(13, p.committable(), "10-12 done, 13 open");
        p.committed(13);
        p.complete(13);
        assertEquals(15, p.committable(), "all done: commit the next offset to read");
    }

    @Test
    void shouldReportNothingNewWhenAlreadyCommitted() {
        PartitionProgress p = new PartitionProgress();
        assertEquals(-1, p.committable(), "nothing fetched yet");
        p.track(0);
        p.complete(0);
        assertEquals(1, p.committable());
        p.committed(1);
        assertEquals(-1, p.committable(), "no change since the last commit");
        p.committed(0);
        assertEquals(-1, p.committable(), "an older commit does not move the mark backwards");
        p.commitFailed();
        assertEquals(1, p.committable(), "after a failed commit the same offset is offered again");
    }

    @Test
    void shouldCountRunningRecordsSeparatelyFromFetchedOnes() {
        PartitionProgress p = new PartitionProgress();
        p.track(0);
        p.track(1);
        p.started();
        assertEquals(1, p.running());
        p.finished();
        assertEquals(0, p.running());
    }
}
