package dev.sqloop.common.runtime;

import dev.sqloop.common.config.KafkaSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;

/** A pass-through worker in its own JVM, for crash tests: {@code bootstrap in out group workMillis maxInFlight}. */
public final class PassThroughWorkerMain {
    private PassThroughWorkerMain() {}

    public static void main(String[] args) throws Exception {
        // The broker's minimum session timeout: the survivor takes over a killed member's partitions in ~6 s, not 45 s.
        KafkaSettings kafka = new KafkaSettings(args[0], java.util.Map.of("session.timeout.ms", "6000"));
        RunnerSettings settings = RunnerSettings.defaults(args[3]).withMaxInFlight(Integer.parseInt(args[5]));
        StageRunner<Probe> runner = KafkaClients.runner(
                new PassThroughStage("crash-worker", args[2], Duration.ofMillis(Long.parseLong(args[4]))),
                args[1], kafka, settings, new SimpleMeterRegistry());
        Runtime.getRuntime().addShutdownHook(new Thread(runner::close));
        runner.start();
        System.out.println("worker started");
        runner.awaitStopped(Duration.ofDays(1));
    }
}
