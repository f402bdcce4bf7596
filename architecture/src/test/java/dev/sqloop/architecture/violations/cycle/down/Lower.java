package dev.sqloop.architecture.violations.cycle.down;

import dev.sqloop.architecture.violations.cycle.up.Upper;

/** A deliberate violation: the other half of a package cycle with {@link Upper}. Only for {@code RulesCatchViolationsTest}. */
public final class Lower {
    public Upper upper() {
        return new Upper();
    }
}
