package dev.sqloop.fewshot;

import dev.sqloop.common.message.ExampleCommand;
import dev.sqloop.common.runtime.AbstractStage;
import dev.sqloop.common.runtime.Outcome;
import dev.sqloop.store.Embedder;
import dev.sqloop.store.ExampleStore;
import dev.sqloop.store.StoredExample;
import java.time.Clock;

/**
 * {@code example-commands} (from {@code POST}/{@code DELETE /v1/examples}): {@code upsert} stores a curator's
 * question→SQL as a {@code manual} example (and lifts a wrong mark: a curator vouched for it), {@code delete} removes
 * it. Each change is published on {@code examples}, where the gateway lists it. The gateway validated the command
 * and checked who may change the example; this stage only refuses what it cannot apply.
 */
public final class ExampleCommandStage extends AbstractStage<ExampleCommand> {
    public static final String NAME = "example-commands";

    private final Embedder embedder;
    private final ExampleStore store;
    private final FewshotConfig config;
    private final Clock clock;

    public ExampleCommandStage(Embedder embedder, ExampleStore store, FewshotConfig config, Clock clock) {
        super(NAME, ExampleCommand.class);
        this.embedder = embedder;
        this.store = store;
        this.config = config;
        this.clock = clock;
    }

    @Override
    public Outcome process(ExampleCommand c) {
        String id = Questions.exampleId(c.datasource(), c.question()).toString();
        // the gateway named the example by the same derivation; a mismatch means the two disagree on normalization
        if (!id.equals(c.exampleId())) return Outcome.drop("example id " + c.exampleId() + " does not match its question (" + id + ")");
        return switch (c.action()) {
            case ExampleCommand.UPSERT -> {
                if (c.sql() == null || c.sql().isBlank()) yield Outcome.drop("upsert needs sql");
                StoredExample example = new StoredExample(c.datasource(), c.question().strip(), c.sql().strip(),
                        c.dialect() == null || c.dialect().isBlank() ? config.defaultDialect() : c.dialect(), StoredExample.MANUAL,
                        clock.instant(), c.tenant(), c.notes(), c.tags());
                store.clearWrong(c.datasource(), c.question());
                store.upsert(example, embedder.embed(example.question()));
                yield ExampleTopic.published("upserted", example);
            }
            case ExampleCommand.DELETE -> {
                store.delete(c.datasource(), c.question());
                yield ExampleTopic.removed("deleted", c.datasource(), c.question());
            }
            default -> Outcome.drop("unknown example action '" + c.action() + "'");
        };
    }
}
