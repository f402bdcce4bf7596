package dev.sqloop.architecture.violations;

import dev.sqloop.lab.MachineSpeed;

/** A deliberate violation: code outside the lab calling a benchmark. Only for {@code RulesCatchViolationsTest}. */
public final class BenchUser {
    public void probe() throws Exception {
        MachineSpeed.main(new String[] {"1"});
    }
}
