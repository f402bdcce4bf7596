package dev.sqloop.parse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.error.ErrorCategory;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Reading ClickHouse's {@code EXPLAIN AST} dumps (recorded from chDB 26.7; ClickHouseIdiomsIT asks the real engine):
 * tables wherever they stand, CTE names paired with their WithElements and scoped, and every dump the reader cannot
 * account for refused.
 */
class ClickHouseAstParserTest {

    private static ClickHouseAstParser answering(String dump) {
        return new ClickHouseAstParser(sql -> dump);
    }

    /** {@code WITH totals AS (SELECT 1 AS s) SELECT s FROM totals WHERE s IN secrets}, as chDB dumps it. */
    private static final String CTE_AND_IN_TABLE = """
            SelectWithUnionQuery (children 1)
             ExpressionList (children 1)
              SelectQuery (children 4)
               ExpressionList (children 1)
                WithElement (children 1)
                 Subquery (children 1)
                  SelectWithUnionQuery (children 1)
                   ExpressionList (children 1)
                    SelectQuery (children 1)
                     ExpressionList (children 1)
                      Literal UInt64_1 (alias s)
               ExpressionList (children 1)
                Identifier s
               TablesInSelectQuery (children 1)
                TablesInSelectQueryElement (children 1)
                 TableExpression (children 1)
                  TableIdentifier totals
               Function in (children 1)
                ExpressionList (children 2)
                 Identifier s
                 Identifier db.secrets
            """;

    @Test
    void shouldReadCteNamesFromTheTextAndTablesFromTheTree() throws SqlRejection {
        ParsedQuery q = answering(CTE_AND_IN_TABLE).parse("WITH totals AS (SELECT 1 AS s) SELECT s FROM totals WHERE s IN db.secrets");
        assertEquals(List.of(ObjectName.of("db", "secrets")), q.tables(), "the CTE is no table; x IN table reads one");
        assertEquals(Set.of("in"), q.functions());
        assertEquals(2, q.scopes().size());
    }

    @Test
    void shouldRefuseACteTheTreeDoesNotHave() {
        // the text names no CTE: the WithElement has no name to pair with, so the reader cannot tell what totals is
        SqlRejection r = assertThrows(SqlRejection.class, () -> answering(CTE_AND_IN_TABLE).parse("SELECT s FROM totals"));
        assertEquals(ErrorCategory.SYNTAX_ERROR, r.category());
    }

    @Test
    void shouldRefuseWhatFollowsTheQuery() {
        String outfile = """
                SelectWithUnionQuery (children 2)
                 ExpressionList (children 1)
                  SelectQuery (children 1)
                   ExpressionList (children 1)
                    Literal UInt64_1
                 Literal '/tmp/x'
                """;
        SqlRejection r = assertThrows(SqlRejection.class, () -> answering(outfile).parse("SELECT 1 INTO OUTFILE '/tmp/x'"));
        assertEquals(ErrorCategory.READ_ONLY_VIOLATION, r.category());
    }

    @Test
    void shouldRefuseAStatementThatIsNoQuery() {
        SqlRejection r = assertThrows(SqlRejection.class, () -> answering("InsertQuery   (children 1)\n Identifier t\n").parse("INSERT INTO t VALUES (1)"));
        assertEquals(ErrorCategory.READ_ONLY_VIOLATION, r.category());
        assertTrue(r.getMessage().startsWith("INSERT statement"), r.getMessage());
    }

    @Test
    void shouldRefuseADumpWhoseChildrenDoNotAddUp() {
        String missing = "SelectWithUnionQuery (children 1)\n ExpressionList (children 2)\n  SelectQuery (children 0)\n";
        assertEquals(ErrorCategory.SYNTAX_ERROR, assertThrows(SqlRejection.class, () -> answering(missing).parse("SELECT 1")).category());
        String extra = "SelectWithUnionQuery (children 1)\n ExpressionList (children 1)\n  SelectQuery\n   Identifier secrets\n";
        assertEquals(ErrorCategory.SYNTAX_ERROR, assertThrows(SqlRejection.class, () -> answering(extra).parse("SELECT 1")).category());
    }

    @Test
    void shouldRefuseANodeKindItDoesNotKnow() {
        String unknown = """
                SelectWithUnionQuery (children 1)
                 ExpressionList (children 1)
                  SelectQuery (children 1)
                   ExpressionList (children 1)
                    Dictionary secrets
                """;
        SqlRejection r = assertThrows(SqlRejection.class, () -> answering(unknown).parse("SELECT 1"));
        assertTrue(r.getMessage().contains("Dictionary"), r.getMessage());
    }

    @Test
    void shouldApplyTheFunctionPolicyToTableFunctionsAndCalls() {
        String url = """
                SelectWithUnionQuery (children 1)
                 ExpressionList (children 1)
                  SelectQuery (children 2)
                   ExpressionList (children 1)
                    Asterisk
                   TablesInSelectQuery (children 1)
                    TablesInSelectQueryElement (children 1)
                     TableExpression (children 1)
                      Function url (children 1)
                       ExpressionList (children 1)
                        Literal 'http://x (children 3)'
                """;
        SqlRejection r = assertThrows(SqlRejection.class, () -> answering(url).parse("SELECT * FROM url('http://x (children 3)')"));
        assertEquals(ErrorCategory.READ_ONLY_VIOLATION, r.category());
    }

    @Test
    void shouldRefuseQuotedNamesTheDumpCannotTellApart() {
        // `a.b` and a.b print alike in the dump
        SqlRejection r = assertThrows(SqlRejection.class, () -> answering(CTE_AND_IN_TABLE).parse("SELECT * FROM `db.secrets`"));
        assertEquals(ErrorCategory.SYNTAX_ERROR, r.category());
    }

    @Test
    void shouldSendOnlyAQueryAfterExplainAst() {
        // EXPLAIN AST graph=1 … would answer in another format; optimize=1 would rewrite the tree
        SqlRejection r = assertThrows(SqlRejection.class, () -> answering(CTE_AND_IN_TABLE).parse("graph=1 SELECT 1"));
        assertEquals(ErrorCategory.READ_ONLY_VIOLATION, r.category(), "it does not start like a query: " + r.getMessage());
    }

    @Test
    void shouldSendLambdasAndArrayJoinToTheEngine() {
        assertTrue(ClickHouseAstParser.needsEngineParser("SELECT arrayMap(x -> x * 2, a) FROM t"));
        assertTrue(ClickHouseAstParser.needsEngineParser("SELECT x FROM t LEFT ARRAY JOIN a AS x"));
        assertFalse(ClickHouseAstParser.needsEngineParser("SELECT 'x -> y', a - 1 FROM t -- array join"));
        assertFalse(ClickHouseAstParser.needsEngineParser("SELECT count() FROM t"));
    }
}
