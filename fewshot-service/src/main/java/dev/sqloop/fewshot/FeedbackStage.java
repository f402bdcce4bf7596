package dev.sqloop.fewshot;

import dev.sqloop.common.message.FeedbackCommand;
import dev.sqloop.common.runtime.AbstractStage;
import dev.sqloop.common.runtime.Outcome;
import dev.sqloop.store.Embedder;
import dev.sqloop.store.ExampleStore;
import dev.sqloop.store.StoredExample;
import java.time.Clock;
import java.util.List;
import java.util.Locale;

/**
 * Curators' commands on {@code feedback}: {@code save} stores the question→SQL now (and lifts a wrong mark),
 * {@code unsave} deletes it, {@code mark-wrong} deletes it and keeps auto-capture away from the question for good.
 * Each change is published on {@code examples} (a tombstone for a deletion).
 */
public final class FeedbackStage extends AbstractStage<FeedbackCommand> {
    public static final String NAME = "feedback";

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
        return switch (c.action().toLowerCase(Locale.ROOT)) {
            case "save" -> {
                if (blank(c.sql())) yield Outcome.drop("save needs sql");
                StoredExample saved = new StoredExample(c.datasource(), c.question(), c.sql(),
                        blank(c.dialect()) ? config.defaultDialect() : c.dialect(),
                        StoredExample.MANUAL, clock.instant(), c.tenant(), null, List.of());
                store.clearWrong(c.datasource(), c.question());
                store.upsert(saved, embedder.embed(c.question()));
                yield ExampleTopic.published("saved", saved);
            }
            case "unsave" -> {
                store.delete(c.datasource(), c.question());
                yield ExampleTopic.removed("unsaved", c.datasource(), c.question());
            }
            case "mark-wrong", "mark_wrong" -> {
                store.markWrong(c.datasource(), c.question());
                yield ExampleTopic.removed("marked_wrong", c.datasource(), c.question());
            }
            default -> Outcome.drop("unknown feedback action '" + c.action() + "'");
        };
    }

    private static boolean blank(String s) {
        return s == null || s.isBlank();
    }
}
