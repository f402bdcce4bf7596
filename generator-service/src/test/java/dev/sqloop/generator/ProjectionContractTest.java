package dev.sqloop.generator;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class ProjectionContractTest {
    private static final String Q = "Show the email, name and city of customers who ordered in May";

    @Test
    void shouldFindTheEnumeratedFields() {
        assertEquals(List.of("email", "name", "city"), ProjectionContract.requestedFields(Q));
        assertEquals(List.of(), ProjectionContract.requestedFields("How many customers are there?"));
        assertEquals(List.of(), ProjectionContract.requestedFields("Show the names of customers"), "one field is not an enumeration");
    }

    @Test
    void shouldPruneExtraItemsAndKeepTheQuestionsOrder() {
        String sql = "SELECT c.id, c.name, c.city, c.email, count(o.id) AS orders FROM customers c JOIN orders o ON o.cid = c.id GROUP BY 1, 2, 3, 4";
        assertEquals("SELECT c.email, c.name, c.city FROM customers c JOIN orders o ON o.cid = c.id GROUP BY 1, 2, 3, 4",
                ProjectionContract.ON.enforce(sql, Q));
    }

    @Test
    void shouldMatchAliasesAndPlurals() {
        String sql = "SELECT upper(c.mail) AS email, c.full_name AS name, c.town AS cities, c.id FROM customers c";
        assertEquals("SELECT upper(c.mail) AS email, c.full_name AS name, c.town AS cities FROM customers c",
                ProjectionContract.ON.enforce(sql, Q));
    }

    @Test
    void shouldLeaveTheSqlAloneWhenUnsure() {
        String missing = "SELECT c.name, c.city FROM customers c";
        assertEquals(missing, ProjectionContract.ON.enforce(missing, Q), "email is not selected: nothing to prune safely");
        String star = "SELECT * FROM customers";
        assertEquals(star, ProjectionContract.ON.enforce(star, Q));
        String distinct = "SELECT DISTINCT email, name, city, id FROM customers";
        assertEquals(distinct, ProjectionContract.ON.enforce(distinct, Q));
        String extra = "SELECT id, email, name, city FROM customers";
        assertEquals(extra, ProjectionContract.OFF.enforce(extra, Q), "off by default");
    }
}
