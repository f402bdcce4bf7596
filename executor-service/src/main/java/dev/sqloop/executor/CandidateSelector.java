package dev.sqloop.executor;

import dev.sqloop.common.message.Candidate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Chooses among a question's candidate SQL by their results (issue 50): candidates that ran are grouped by
 * {@linkplain ResultFingerprint result fingerprint}, and the largest group wins when no other is as large. A tie (all
 * differ, or two groups of two) is {@link Decision#UNCERTAIN}: no answer. Candidates that failed or were not SQL do not
 * vote. One that alone ran, the others failing, is {@link Decision#SOLE}: nothing contradicts it, and it is what one
 * candidate would have answered.
 */
public final class CandidateSelector {

    /** How the answer was chosen. */
    public enum Decision {
        /** Every candidate that ran returned the same result. */
        UNANIMOUS,
        /** The largest group of agreeing candidates is larger than every other. */
        MAJORITY,
        /** Only one candidate ran. */
        SOLE,
        /** No group is larger than every other: no answer. */
        UNCERTAIN;

        public String wireName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /**
     * @param winner the chosen candidate (the lowest index of the winning group, so the question's own attempt when it
     *               agrees); null when uncertain
     * @param groups the sizes of the groups of agreeing candidates, largest first
     * @param reason one line for the trace and, when uncertain, the result's message
     */
    public record Selection(Decision decision, Candidate winner, List<Integer> groups, String reason) {}

    private CandidateSelector() {}

    public static Selection select(List<Candidate> candidates) {
        Map<String, List<Candidate>> byResult = new LinkedHashMap<>();
        for (Candidate c : candidates) {
            if (c.votes()) byResult.computeIfAbsent(c.fingerprint(), k -> new ArrayList<>()).add(c);
        }
        int failed = candidates.size() - byResult.values().stream().mapToInt(List::size).sum();
        List<List<Candidate>> groups = byResult.values().stream()
                .sorted(Comparator.comparingInt((List<Candidate> g) -> g.size()).reversed()).toList();
        List<Integer> sizes = groups.stream().map(List::size).toList();
        String tally = candidates.size() + " candidates, " + (failed == 0 ? "all ran" : failed + " did not run")
                + (groups.isEmpty() ? "" : "; results in " + groups.size() + (groups.size() == 1 ? " group" : " groups")
                + " of " + sizes.stream().map(String::valueOf).collect(Collectors.joining(", ")));
        if (groups.isEmpty()) return new Selection(Decision.UNCERTAIN, null, sizes, "no candidate ran: " + tally);
        List<Candidate> top = groups.getFirst();
        Candidate winner = top.stream().min(Comparator.comparingInt(Candidate::index)).orElseThrow();
        if (groups.size() == 1) {
            Decision d = top.size() == 1 ? Decision.SOLE : Decision.UNANIMOUS;
            return new Selection(d, winner, sizes, d.wireName() + ": " + tally + "; candidate " + winner.index() + " chosen");
        }
        if (top.size() > groups.get(1).size()) {
            return new Selection(Decision.MAJORITY, winner, sizes, "majority: " + tally + "; candidate " + winner.index()
                    + " chosen with " + top.size() + " agreeing");
        }
        return new Selection(Decision.UNCERTAIN, null, sizes, "no agreement: " + tally + "; no group is larger than every other");
    }
}
