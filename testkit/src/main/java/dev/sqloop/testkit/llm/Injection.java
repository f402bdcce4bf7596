package dev.sqloop.testkit.llm;

import java.util.List;

/**
 * The fault the oracle injected for one question: the faulty answer, the error a real engine (or validator)
 * would report for it, in the error taxonomy's wire form, and the evidence — strings that, found in a
 * correction prompt outside the faulty SQL and the question, let the oracle fix it.
 *
 * @param category error category wire name ({@code column_not_found}…); null for prose, which the generator's
 *                 own guardrails catch
 * @param identifier the offending identifier, when there is one
 */
public record Injection(Fault fault, String question, String goldSql, String faultyAnswer, String category,
                        String errorMessage, String identifier, List<String> evidence) {
    public Injection {
        evidence = List.copyOf(evidence);
    }

    /** Whether the faulty answer is SQL (wrapped as JSON or a fenced block) rather than raw prose. */
    public boolean answerIsSql() {
        return fault != Fault.PROSE;
    }
}
