package dev.sqloop.fewshot;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The question's vector from retrieval, kept for capture in the same process: the fewshot service embeds a question
 * when it retrieves its examples and again when it captures the answer, the same text with the same model. Bounded
 * (the oldest entries go first), keyed by question id and checked against the text, so a miss (another replica, a
 * restart, an entry pushed out by a long backlog) only means capture embeds it again.
 */
public final class QuestionVectors {
    /** Retrieval and capture of a question are at most a backlog apart; the default backlog bound is 1,000. */
    public static final int DEFAULT_CAPACITY = 8_192;
    /** Keeps nothing: every capture embeds (a stage built without a shared instance). */
    public static final QuestionVectors NONE = new QuestionVectors(0);

    private record Vector(String question, float[] vector) {}

    private final int capacity;
    private final Map<String, Vector> byQuestionId;

    public QuestionVectors(int capacity) {
        this.capacity = capacity;
        this.byQuestionId = new LinkedHashMap<>(16, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Vector> eldest) {
                return size() > QuestionVectors.this.capacity;
            }
        };
    }

    void put(String questionId, String question, float[] vector) {
        if (capacity == 0) return;
        synchronized (byQuestionId) {
            byQuestionId.put(questionId, new Vector(question, vector));
        }
    }

    /** The vector retrieval computed for this question, removed; null when there is none for this very text. */
    float[] take(String questionId, String question) {
        if (capacity == 0) return null;
        Vector e;
        synchronized (byQuestionId) {
            e = byQuestionId.remove(questionId);
        }
        return e != null && e.question().equals(question) ? e.vector() : null;
    }

    int size() {
        synchronized (byQuestionId) {
            return byQuestionId.size();
        }
    }
}
