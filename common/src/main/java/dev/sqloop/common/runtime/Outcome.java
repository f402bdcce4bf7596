package dev.sqloop.common.runtime;

import dev.sqloop.common.topic.Topic;
import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.message.Message;
import dev.sqloop.common.message.QuestionResult;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.common.message.Tombstone;
import java.util.ArrayList;
import java.util.List;

/** What a stage decided for one input: messages to send on, or nothing. */
public sealed interface Outcome permits Outcome.Send, Outcome.Drop {

    /** One message for one topic (by name: tests and tools route to topics outside the registry). */
    record Emission(String topic, Message message) {}

    /**
     * Messages to produce. {@code kind} names the decision for metrics: {@code forward}, {@code repair},
     * {@code final}.
     */
    record Send(String kind, List<Emission> emissions) implements Outcome {
        public Send {
            emissions = List.copyOf(emissions);
        }

        /** The same decision, plus a side message (an attempt event, a capture…). */
        public <M extends Message> Send and(Topic<M> topic, M message) {
            return and(topic.name(), message);
        }

        public Send and(String topic, Message message) {
            List<Emission> all = new ArrayList<>(emissions);
            all.add(new Emission(topic, message));
            return new Send(kind, all);
        }
    }

    /** Nothing to produce (a duplicate, a stale command); the input is acknowledged. */
    record Drop(String reason) implements Outcome {}

    static <M extends Message> Send forward(Topic<M> topic, M message) {
        return forward(topic.name(), message);
    }

    static Send forward(String topic, Message message) {
        return new Send("forward", List.of(new Emission(topic, message)));
    }

    /** A decision named {@code kind} sending {@code message} to {@code topic}. */
    static <M extends Message> Send send(String kind, Topic<M> topic, M message) {
        return new Send(kind, List.of(new Emission(topic.name(), message)));
    }

    static Send repair(QuestionTask task) {
        return send("repair", Topics.REPAIR_FEEDBACK, task);
    }

    static Send finish(QuestionResult result) {
        return send("final", Topics.RESULTS, result);
    }

    /** Deletes {@code key} from a compacted topic: a record with a null value (see {@link Tombstone}). */
    static Send tombstone(String kind, Topic<?> topic, String key) {
        return tombstone(kind, topic.name(), key);
    }

    static Send tombstone(String kind, String topic, String key) {
        return new Send(kind, List.of(new Emission(topic, new Tombstone(key))));
    }

    static Drop drop(String reason) {
        return new Drop(reason);
    }

    /** The metrics tag for this outcome. */
    default String kind() {
        return this instanceof Send s ? s.kind() : "drop";
    }
}
