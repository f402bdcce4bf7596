package dev.sqloop.fewshot;

import dev.sqloop.common.message.ExampleCommand;
import dev.sqloop.common.runtime.AbstractStage;
import dev.sqloop.common.runtime.Outcome;
import dev.sqloop.store.Embedder;
import dev.sqloop.store.ExampleStore;
import dev.sqloop.store.StoredExample;
import java.time.Clock;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code example-commands} (from {@code POST}/{@code DELETE /v1/examples}): {@code upsert} stores a curator's
 * question→SQL as a {@code manual} example (and lifts a wrong mark: a curator vouched for it), {@code delete} removes
 * it. Each change is published on {@code examples}, where the gateway lists it. The gateway validated the command
 * and checked who may change the example; this stage applies it to the example the command names (a tenant's own, or
 * the shared one of a curator) and refuses, besides what it cannot apply, SQL that is not one read-only query
 * ({@link ExampleChecks}) whoever produced the command.
 */
public final class ExampleCommandStage extends AbstractStage<ExampleCommand> {
    public static final String NAME = "example-commands";
    private static final Logger log = LoggerFactory.getLogger(ExampleCommandStage.class);

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
        // the shared example, or the owner's own (null when shared)
        String owner = c.owner();
        String id = Questions.exampleId(c.datasource(), c.question(), owner).toString();
        // the gateway named the example by the same derivation; a mismatch means the two disagree on normalization or owner
        if (!id.equals(c.exampleId())) return Outcome.drop("example id " + c.exampleId() + " does not match its question and owner (" + id + ")");
        return switch (c.action()) {
            case ExampleCommand.UPSERT -> {
                String dialect = c.dialect() == null || c.dialect().isBlank() ? config.defaultDialect() : c.dialect();
                Optional<String> refused = ExampleChecks.whyNotStorable(c.question(), c.sql(), dialect);
                if (refused.isPresent()) {
                    log.warn("example command {} refused: {}", c.exampleId(), refused.get());
                    yield Outcome.drop("refused: " + refused.get());
                }
                // a shared example keeps the curator who shared it as its creator
                StoredExample example = new StoredExample(c.datasource(), c.question().strip(), c.sql().strip(), dialect, StoredExample.MANUAL,
                        clock.instant(), c.shared() ? c.tenant() : owner, c.notes(), c.tags(), c.shared());
                store.clearWrong(c.datasource(), c.question(), owner);
                store.upsert(example, embedder.embed(example.question()));
                yield ExampleTopic.published("upserted", example);
            }
            case ExampleCommand.DELETE -> {
                store.delete(c.datasource(), c.question(), owner);
                yield ExampleTopic.removed("deleted", c.datasource(), c.question(), owner);
            }
            default -> Outcome.drop("unknown example action '" + c.action() + "'");
        };
    }
}
