package dev.sqloop.architecture.violations;

import dev.sqloop.testkit.EmbeddedKafka;

/** A deliberate violation: production-looking code starting the test broker. Only for {@code RulesCatchViolationsTest}. */
public final class TestkitUser {
    public String start() throws Exception {
        try (EmbeddedKafka broker = EmbeddedKafka.start()) {
            return broker.bootstrapServers();
        }
    }
}
