package dev.sqloop.generator;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RequestPacerTest {

    @Test
    void shouldSpaceCallsAcrossThreads() throws Exception {
        RequestPacer pacer = new RequestPacer(20); // one call per 50 ms
        List<Thread> threads = new ArrayList<>();
        long start = System.nanoTime();
        for (int i = 0; i < 6; i++) {
            threads.add(Thread.ofVirtual().start(() -> {
                try {
                    pacer.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));
        }
        for (Thread t : threads) t.join();
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertTrue(millis >= 240, "six calls at 20/s take at least 250 ms, took " + millis);
    }

    @Test
    void shouldNotWaitWhenOff() throws Exception {
        long start = System.nanoTime();
        for (int i = 0; i < 1000; i++) RequestPacer.OFF.await();
        assertTrue((System.nanoTime() - start) / 1_000_000 < 200);
    }
}
