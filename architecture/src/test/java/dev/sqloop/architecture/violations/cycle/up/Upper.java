package dev.sqloop.architecture.violations.cycle.up;

import dev.sqloop.architecture.violations.cycle.down.Lower;

/** A deliberate violation: one half of a package cycle with {@link Lower}. Only for {@code RulesCatchViolationsTest}. */
public final class Upper {
    public Lower lower() {
        return new Lower();
    }
}
