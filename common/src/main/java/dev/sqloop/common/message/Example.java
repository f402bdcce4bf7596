package dev.sqloop.common.message;

/** A question→SQL example retrieved for the prompt; {@code source} is seed, auto or manual. */
public record Example(String question, String sql, double score, String source) {}
