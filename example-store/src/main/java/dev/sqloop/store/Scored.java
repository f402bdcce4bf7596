package dev.sqloop.store;

/** A search hit with its cosine similarity to the query vector (-1..1, higher is closer). */
public record Scored<T>(T value, double score) {}
