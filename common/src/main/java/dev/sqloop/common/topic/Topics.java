package dev.sqloop.common.topic;

import dev.sqloop.common.message.AttemptEvent;
import dev.sqloop.common.message.BatchManifest;
import dev.sqloop.common.message.Cancellation;
import dev.sqloop.common.message.ExampleCommand;
import dev.sqloop.common.message.ExampleRecord;
import dev.sqloop.common.message.FeedbackCommand;
import dev.sqloop.common.message.QuestionResult;
import dev.sqloop.common.message.QuestionTask;
import java.util.List;

/** The one registry of sqloop topics: each named with the message type it carries, and its partition count. */
public final class Topics {
    public static final Topic<QuestionTask> RETRIEVE_EXAMPLES = Topic.of("retrieve-examples", QuestionTask.class);
    public static final Topic<QuestionTask> GENERATE = Topic.of("generate", QuestionTask.class);
    /**
     * The priority lane of {@code generate}: corrections (attempt 2 and later) from the repair worker. The generator
     * reads it with a consumer of its own and gives its LLM calls the next free slot before any first attempt, so a
     * question in repair waits for its own attempts, not for the rest of the batch queued on {@code generate}.
     */
    public static final Topic<QuestionTask> REGENERATE = Topic.of("regenerate", QuestionTask.class);
    public static final Topic<QuestionTask> STATIC_VALIDATE = Topic.of("static-validate", QuestionTask.class);
    public static final Topic<QuestionTask> EXECUTE = Topic.of("execute", QuestionTask.class);
    public static final Topic<QuestionTask> REPAIR_FEEDBACK = Topic.of("repair-feedback", QuestionTask.class);
    public static final Topic<QuestionTask> SUCCESS = Topic.of("success", QuestionTask.class);
    public static final Topic<QuestionResult> RESULTS = Topic.of("results", QuestionResult.class);
    public static final Topic<AttemptEvent> EVENTS = Topic.of("events", AttemptEvent.class);
    public static final Topic<FeedbackCommand> FEEDBACK = Topic.of("feedback", FeedbackCommand.class);
    /** Cancelled questions and batches, compacted, keyed {@code question:<id>} / {@code batch:<id>}; every runner reads it whole. */
    public static final Topic<Cancellation> CANCELLATIONS = Topic.of("cancellations", Cancellation.class);
    /** Dead letters: the original record's bytes, whatever its type, plus {@code sqloop.error.*} headers. */
    public static final Topic<byte[]> DLQ = Topic.of("dlq", byte[].class);
    /**
     * Which dead letters {@code ./sqloop dlq replay} has re-produced, compacted, keyed by the dead letter's id (its
     * {@code dlq} offset): written in the same transaction as the replayed record, so a replay happens once.
     */
    public static final Topic<byte[]> DLQ_REPLAYS = Topic.of("dlq-replays", byte[].class);
    /** Batch manifests (id, tenant, size), compacted: the gateway's batch progress reads them. */
    public static final Topic<BatchManifest> BATCHES = Topic.of("batches", BatchManifest.class);
    /**
     * Every example in the few-shot store, compacted, keyed by example id; a tombstone when one is deleted. Only the
     * fewshot service writes it (after its store write); the gateway reads it into a global table for {@code /v1/examples}.
     */
    public static final Topic<ExampleRecord> EXAMPLES = Topic.of("examples", ExampleRecord.class);
    /** Curators' example commands from the gateway ({@code POST/DELETE /v1/examples}), applied by the fewshot service. */
    public static final Topic<ExampleCommand> EXAMPLE_COMMANDS = Topic.of("example-commands", ExampleCommand.class);

    /** A topic and how it is created: partitions, and whether it is compacted (latest value per key). */
    public record Spec(String name, int partitions, boolean compacted) {
        public Spec(Topic<?> topic, int partitions, boolean compacted) {
            this(topic.name(), partitions, compacted);
        }

        public static Spec of(Topic<?> topic, int partitions, boolean compacted) {
            return new Spec(topic.name(), partitions, compacted);
        }
    }

    /**
     * Every topic with its intended partition count. Work topics get 6 partitions so a stage can run up to
     * six consumer-group members; in-flight concurrency inside one member does not need more.
     */
    public static final List<Spec> ALL = List.of(
            Spec.of(RETRIEVE_EXAMPLES, 6, false),
            Spec.of(GENERATE, 6, false),
            Spec.of(REGENERATE, 6, false),
            Spec.of(STATIC_VALIDATE, 6, false),
            Spec.of(EXECUTE, 6, false),
            Spec.of(REPAIR_FEEDBACK, 6, false),
            Spec.of(SUCCESS, 6, false),
            Spec.of(RESULTS, 6, true),
            Spec.of(EVENTS, 6, false),
            Spec.of(FEEDBACK, 1, false),
            Spec.of(CANCELLATIONS, 1, true),
            Spec.of(BATCHES, 6, true),
            Spec.of(EXAMPLES, 6, true),
            Spec.of(EXAMPLE_COMMANDS, 1, false),
            Spec.of(DLQ, 1, false),
            Spec.of(DLQ_REPLAYS, 1, true));

    private Topics() {}
}
