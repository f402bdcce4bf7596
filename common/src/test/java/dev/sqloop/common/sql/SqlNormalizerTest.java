package dev.sqloop.common.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SqlNormalizerTest {

    @Test
    void shouldFoldCaseWhitespaceCommentsAndTrailingSemicolon() {
        String a = "SELECT region,\n   SUM(amount)  -- total\nFROM sales /* all rows */ GROUP BY region;";
        String b = "select region , sum(amount) from SALES group by REGION";
        assertEquals(SqlNormalizer.normalize(b), SqlNormalizer.normalize(a));
        assertEquals("select region , sum ( amount ) from sales group by region", SqlNormalizer.normalize(a));
    }

    @Test
    void shouldKeepCaseInsideStringLiteralsAndQuotedIdentifiers() {
        assertNotEquals(SqlNormalizer.normalize("SELECT * FROM t WHERE name = 'Alice'"),
                SqlNormalizer.normalize("SELECT * FROM t WHERE name = 'alice'"));
        assertNotEquals(SqlNormalizer.normalize("SELECT \"Col\" FROM t"), SqlNormalizer.normalize("SELECT \"col\" FROM t"));
    }

    @Test
    void shouldNotTreatCommentMarkersInsideLiteralsAsComments() {
        assertEquals("select '--not a comment' , 'it''s' from t",
                SqlNormalizer.normalize("SELECT '--not a comment', 'it''s' FROM t"));
    }

    @Test
    void shouldTellDifferentStatementsApart() {
        assertFalse(SqlNormalizer.sameStatement("SELECT id FROM products", "SELECT product_id FROM products"));
        assertTrue(SqlNormalizer.sameStatement("SELECT id FROM products;", "select  id\nfrom products"));
        assertFalse(SqlNormalizer.sameStatement(null, "SELECT 1"));
    }
}
