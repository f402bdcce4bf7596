package dev.sqloop.fewshot;

import dev.sqloop.common.message.FeedbackCommand;
import dev.sqloop.common.runtime.AbstractStage;
import dev.sqloop.common.runtime.Outcome;
import dev.sqloop.store.Embedder;
import dev.sqloop.store.ExampleStore;
import dev.sqloop.store.StoredExample;
import dev.sqloop.common.message.ExampleIds;
import java.time.Clock;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import java.util.List;
import java.util.Locale;

/**
 * Curators' commands on {@code feedback}: {@code save} stores the question→SQL now (and lifts a wrong mark),
 * {@code unsave} deletes it, {@code mark-wrong} deletes it and keeps auto-capture away from the question for good.
 * Each change is published on {@code examples} (a tombstone for a deletion). Every action changes the asking tenant's
 * own example of the question, never another tenant's or a shared one, and a save is held to the checks of a posted
 * example ({@link ExampleChecks}: one read-only query of a sane size): a refused save is dropped with its reason logged.
 */
public final class FeedbackStage extends AbstractStage<FeedbackCommand> {
    public static final String NAME = "feedback";
    private static final Logger log = LoggerFactory.getLogger(FeedbackStage.class);

    private final Embedder embedder;
    private final ExampleStore store;
    private final FewshotConfig config;
    private final Clock clock;

    public FeedbackStage(Embedder embedder, ExampleStore store, FewshotConfig config, Clock clock) {
        super(NAME, FeedbackCommand.class);
        this.embedder = embedder;
        this.store = store;
        this.config = config;
        this.clock = clock;
    }

    @Override
    public Outcome process(FeedbackCommand c) {
        if (blank(c.datasource()) || blank(c.question())) return Outcome.drop(c.action() + " needs datasource and question");
        // feedback changes the asking tenant's own example only (its question is its own); shared ones are for curators
        String owner = ExampleIds.owner(c.tenant());
        return switch (c.action().toLowerCase(Locale.ROOT)) {
            case "save" -> {
                String dialect = blank(c.dialect()) ? config.defaultDialect() : c.dialect();
                Optional<String> refused = ExampleChecks.whyNotStorable(c.question(), c.sql(), dialect);
                if (refused.isPresent()) {
                    log.warn("feedback save {} refused: {}", c.questionId(), refused.get());
                    yield Outcome.drop("refused: " + refused.get());
                }
                StoredExample saved = new StoredExample(c.datasource(), c.question(), c.sql().strip(), dialect,
                        StoredExample.MANUAL, clock.instant(), owner, null, List.of(), false);
                store.clearWrong(c.datasource(), c.question(), owner);
                store.upsert(saved, embedder.embed(c.question()));
                yield ExampleTopic.published("saved", saved);
            }
            case "unsave" -> {
                store.delete(c.datasource(), c.question(), owner);
                yield ExampleTopic.removed("unsaved", c.datasource(), c.question(), owner);
            }
            case "mark-wrong", "mark_wrong" -> {
                store.markWrong(c.datasource(), c.question(), owner);
                yield ExampleTopic.removed("marked_wrong", c.datasource(), c.question(), owner);
            }
            default -> Outcome.drop("unknown feedback action '" + c.action() + "'");
        };
    }

    private static boolean blank(String s) {
        return s == null || s.isBlank();
    }
}
