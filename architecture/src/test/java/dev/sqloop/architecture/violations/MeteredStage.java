package dev.sqloop.architecture.violations;

import dev.sqloop.common.runtime.Outcome;
import dev.sqloop.common.runtime.Stage;
import io.micrometer.core.instrument.MeterRegistry;

/** A deliberate violation: a stage holding a Micrometer registry. Only for {@code RulesCatchViolationsTest}. */
public abstract class MeteredStage implements Stage<String> {
    protected MeterRegistry registry;

    public abstract Outcome handle(String input);
}
