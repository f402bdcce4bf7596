package dev.sqloop.common;

import java.util.List;

/** The one registry of sqloop topic names and their intended partition counts. */
public final class Topics {
    public static final String RETRIEVE_EXAMPLES = "retrieve-examples";
    public static final String GENERATE = "generate";
    public static final String STATIC_VALIDATE = "static-validate";
    public static final String EXECUTE = "execute";
    public static final String REPAIR_FEEDBACK = "repair-feedback";
    public static final String SUCCESS = "success";
    public static final String RESULTS = "results";
    public static final String EVENTS = "events";
    public static final String FEEDBACK = "feedback";
    public static final String DLQ = "dlq";
    /** Batch manifests (id, tenant, size), compacted: the gateway's batch progress reads them. */
    public static final String BATCHES = "batches";
    /**
     * Every example in the few-shot store, compacted, keyed by example id; a tombstone when one is deleted. Only the
     * fewshot service writes it (after its store write); the gateway reads it into a global table for {@code /v1/examples}.
     */
    public static final String EXAMPLES = "examples";
    /** Curators' example commands from the gateway ({@code POST/DELETE /v1/examples}), applied by the fewshot service. */
    public static final String EXAMPLE_COMMANDS = "example-commands";

    /** A topic and how it is created: partitions, and whether it is compacted (latest value per key). */
    public record Spec(String name, int partitions, boolean compacted) {}

    /**
     * Every topic with its intended partition count. Work topics get 6 partitions so a stage can run up to
     * six consumer-group members; in-flight concurrency inside one member does not need more.
     */
    public static final List<Spec> ALL = List.of(
            new Spec(RETRIEVE_EXAMPLES, 6, false),
            new Spec(GENERATE, 6, false),
            new Spec(STATIC_VALIDATE, 6, false),
            new Spec(EXECUTE, 6, false),
            new Spec(REPAIR_FEEDBACK, 6, false),
            new Spec(SUCCESS, 6, false),
            new Spec(RESULTS, 6, true),
            new Spec(EVENTS, 6, false),
            new Spec(FEEDBACK, 1, false),
            new Spec(BATCHES, 6, true),
            new Spec(EXAMPLES, 6, true),
            new Spec(EXAMPLE_COMMANDS, 1, false),
            new Spec(DLQ, 1, false));

    private Topics() {}
}
