package dev.sqloop.testkit.llm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.EnumMap;
import dev.sqloop.testkit.engines.DefogQuestions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GoldSqlTest {
    private static final Path DEFOG = dev.sqloop.testkit.engines.DefogDatasets.questionsCsv();

    @Test
    void shouldResolveSqlEvalAlternatives() {
        assertEquals("SELECT author.name, sum(x) AS t FROM author GROUP BY author.name ORDER BY t DESC",
                DefogQuestions.firstAlternative("SELECT {author.name, author.aid}, sum(x) AS t FROM author GROUP BY {} ORDER BY t DESC;SELECT 2").strip());
        assertEquals("SELECT 'a;b' FROM t", DefogQuestions.firstAlternative("SELECT 'a;b' FROM t;").strip());
    }

    @Test
    void shouldInjectAndRepairEveryFaultOnTheDefogQuestions() throws Exception {
        Map<String, String> gold = GoldSql.byQuestion(GoldSql.fromDefogCsv(DEFOG));
        assertTrue(gold.size() >= 100, "questions: " + gold.size());
        Map<Fault, Integer> applied = new EnumMap<>(Fault.class);
        for (Fault fault : Fault.classic()) {
            if (fault == Fault.NONE) continue;
            Map<String, Fault> all = new java.util.HashMap<>();
            gold.keySet().forEach(q -> all.put(q, fault));
            OracleResponder oracle = new OracleResponder(gold, Map.of(), "trino", 1).withFaults(all);
            for (String q : gold.keySet()) {
                Injection i = oracle.injectionFor(q);
                if (i.fault() == fault) applied.merge(fault, 1, Integer::sum);
                assertNotEquals(i.goldSql(), i.faultyAnswer(), "a fault changes the answer: " + q);
                String error = i.errorMessage() != null ? i.errorMessage() : "the answer was prose, not a SQL statement";
                String informed = "Failed SQL:\n" + i.faultyAnswer() + "\n\nError:\n" + error + "\n\nFix and regenerate for: \"" + q + "\"";
                String blind = "Failed SQL:\n" + i.faultyAnswer() + "\n\nFix the error.\n\nFix and regenerate for: \"" + q + "\"";
                String goldAnswer = "```sql\n" + i.goldSql() + "\n```";
                assertEquals(goldAnswer, oracle.respond(new ChatCall("openai", "m", "s", informed, false)), i.fault() + ": " + q);
                assertNotEquals(goldAnswer, oracle.respond(new ChatCall("openai", "m", "s", blind, false)), i.fault() + " blind: " + q);
            }
        }
        long grouped = gold.values().stream().filter(sql -> sql.toUpperCase().contains("GROUP BY")).count();
        for (Fault f : applied.keySet()) {
            long applicable = f == Fault.MISSING_GROUP_BY ? grouped : gold.size();
            assertTrue(applied.get(f) >= applicable / 2, f + " applies to few questions (" + applicable + " applicable): " + applied);
        }
        assertEquals(Fault.classic().size() - 1, applied.size(), "every fault applies somewhere: " + applied);
    }
}
