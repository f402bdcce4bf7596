package dev.sqloop.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.error.ErrorCategory;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Spark Thrift Server 3.5.4 and Hive 4.0.1 messages through hive-jdbc 4.0.1 (../shared/facts/engine-errors.md). */
class HiveErrorsTest {
    private final ErrorClassifier classifier = new HiveErrors();
    private static final String SPARK = "org.apache.hive.service.cli.HiveSQLException: Error running query: ";
    private static final String STACK = "\n== Analyzed Logical Plan ==\n\tat org.apache.spark.sql.catalyst.analysis.package$AnalysisErrorAt.failAnalysis(package.scala:52)\n\tat org.apache.spark.Foo.bar(Foo.scala:1)";

    private EngineError spark(String errorClass, String state, String text) {
        return classifier.classify(new SQLException(SPARK + "[" + errorClass + "] org.apache.spark.sql.AnalysisException: [" + errorClass + "] " + text + STACK, state, 0));
    }

    @Test
    void shouldReadSparkErrorClassesAndCutTheStackTrace() {
        EngineError col = spark("UNRESOLVED_COLUMN.WITH_SUGGESTION", "42703",
                "A column or function parameter with name `nosuchcol` cannot be resolved. Did you mean one of the following? [`amount`, `dt`, `id`, `region`].; line 1 pos 7;");
        assertEquals(ErrorCategory.COLUMN_NOT_FOUND, col.category());
        assertEquals("nosuchcol", col.identifier());
        assertEquals(List.of("amount", "dt", "id", "region"), col.candidates());
        assertFalse(col.message().contains("\tat "), col.message());
        assertEquals(ErrorCategory.TABLE_NOT_FOUND, spark("TABLE_OR_VIEW_NOT_FOUND", "42P01", "The table or view `nosuchtable` cannot be found.").category());
        assertEquals(ErrorCategory.AGGREGATION_ERROR, spark("MISSING_GROUP_BY", "42803", "The query does not include a GROUP BY clause.").category());
        assertEquals(ErrorCategory.AGGREGATION_ERROR, spark("MISSING_AGGREGATION", "42803", "The non-aggregating expression \"dt\" is based on columns which are not participating in the GROUP BY clause.").category());
        assertEquals(ErrorCategory.TYPE_MISMATCH, spark("DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES", "42K09", "Cannot resolve \"(id + array(1))\" due to data type mismatch").category());
        assertEquals(ErrorCategory.UNSUPPORTED_FUNCTION, spark("UNRESOLVED_ROUTINE", "42883", "Cannot resolve function `no_such_fn` on search path [`system`.`builtin`].").category());
        assertEquals(ErrorCategory.UNSUPPORTED_FUNCTION, spark("WRONG_NUM_ARGS.WITHOUT_SUGGESTION", "42605", "The `substr` requires [2, 3] parameters but the actual number is 0.").category());
        assertEquals(ErrorCategory.TYPE_MISMATCH, spark("CAST_INVALID_INPUT", "22018", "The value 'abc' of the type \"STRING\" cannot be cast to \"BIGINT\"").category());
        EngineError zero = spark("DIVIDE_BY_ZERO", "22012", "Division by zero. Use `try_divide` to tolerate divisor being 0 and return NULL instead.");
        assertEquals(ErrorCategory.UNKNOWN, zero.category());
        assertEquals(null, zero.identifier(), "advice in backticks is not the offending name");
        assertEquals("abc", spark("CAST_INVALID_INPUT", "22018", "The value 'abc' of the type \"STRING\" cannot be cast to \"BIGINT\" because it"
                + " is malformed. Use `try_cast` to tolerate malformed input").identifier());
        EngineError amb = spark("AMBIGUOUS_REFERENCE", "42704", "Reference `id` is ambiguous, could be: [`a`.`id`, `b`.`id`].; line 1 pos 7");
        assertEquals(ErrorCategory.JOIN_ERROR, amb.category());
        assertEquals(List.of("a.id", "b.id"), amb.candidates());
        EngineError parse = classifier.classify(new SQLException(SPARK + "org.apache.spark.sql.catalyst.parser.ParseException: \n[PARSE_SYNTAX_ERROR] Syntax error at or near 'SELEC'.(line 1, pos 0)\n\n== SQL ==\nSELEC * FROM sales\n^^^" + STACK, "42601", 0));
        assertEquals(ErrorCategory.SYNTAX_ERROR, parse.category());
    }

    /** As Spark 3.5.4 sent it (SparkExecutorIT): a qualified name, a multi-line text, then the analyzed plan. */
    @Test
    void shouldKeepAQualifiedSparkNameAndDropThePrefixAndThePlan() {
        String real = SPARK + "[UNRESOLVED_COLUMN.WITH_SUGGESTION] org.apache.spark.sql.AnalysisException: [UNRESOLVED_COLUMN.WITH_SUGGESTION]"
                + " A column or function parameter with name `a`.`nme` cannot be resolved. Did you mean one of the following?"
                + " [`a`.`dt`, `a`.`id`, `a`.`amount`, `a`.`region`].; line 1 pos 7;\n'Project ['a.nme]\n+- SubqueryAlias a\n"
                + "   +- HiveTableRelation [`spark_catalog`.`d1`.`sales`, org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe]" + STACK;
        EngineError e = classifier.classify(new SQLException(real, "42703", 0));
        assertEquals(ErrorCategory.COLUMN_NOT_FOUND, e.category());
        assertEquals("a.nme", e.identifier());
        assertEquals(List.of("a.dt", "a.id", "a.amount", "a.region"), e.candidates());
        assertEquals("[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column or function parameter with name `a`.`nme` cannot be resolved."
                + " Did you mean one of the following? [`a`.`dt`, `a`.`id`, `a`.`amount`, `a`.`region`].; line 1 pos 7;", e.message());
        EngineError table = classifier.classify(new SQLException(SPARK + "[TABLE_OR_VIEW_NOT_FOUND] org.apache.spark.sql.AnalysisException:"
                + " [TABLE_OR_VIEW_NOT_FOUND] The table or view `nosuchdb`.`sales` cannot be found. Verify the spelling.\n"
                + "If you did not qualify the name with a schema, verify the current_schema() output.; line 1 pos 14;\n'Project [*]\n"
                + "+- 'UnresolvedRelation [nosuchdb, sales], [], false\n" + STACK, "42P01", 0));
        assertEquals("nosuchdb.sales", table.identifier());
        assertTrue(table.message().endsWith("current_schema() output.; line 1 pos 14;"), table.message());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "42000|10004|Error while compiling statement: FAILED: SemanticException [Error 10004]: Line 1:7 Invalid table alias or column reference 'nosuchcol': (possible column names are: id, region, amount, dt)|COLUMN_NOT_FOUND",
            "42S02|10001|Error while compiling statement: FAILED: SemanticException [Error 10001]: Line 1:14 Table not found 'nosuchtable'|TABLE_NOT_FOUND",
            "42000|10025|Error while compiling statement: FAILED: SemanticException [Error 10025]: Line 1:7 Expression not in GROUP BY key 'region'|AGGREGATION_ERROR",
            "42000|40000|Error while compiling statement: FAILED: ClassCastException class org.apache.hadoop.hive.serde2.objectinspector.StandardConstantListObjectInspector cannot be cast to class PrimitiveObjectInspector|TYPE_MISMATCH",
            "42000|10014|Error while compiling statement: FAILED: SemanticException [Error 10014]: Line 1:26 Wrong arguments 'true': Casting DATE/TIMESTAMP to NUMERIC is prohibited (hive.strict.timestamp.conversion)|TYPE_MISMATCH",
            "42000|10011|Error while compiling statement: FAILED: SemanticException [Error 10011]: Invalid function no_such_fn|UNSUPPORTED_FUNCTION",
            "42000|40000|Error while compiling statement: FAILED: ParseException line 1:0 cannot recognize input near 'SELEC' '*' 'FROM'|SYNTAX_ERROR",
            "42000|40000|Error while compiling statement: FAILED: ParseException line 1:25 cannot recognize input near '<EOF>' '<EOF>' '<EOF>' in expression specification|SYNTAX_ERROR",
            "42000|40000|Error while compiling statement: FAILED: SemanticException Column id Found in more than One Tables/Subqueries|JOIN_ERROR",
            "08S01|-101|Error while compiling statement: FAILED: Execution Error, return code -101 from org.apache.hadoop.hive.ql.exec.mr.MapRedTask.|UNKNOWN"})
    void shouldReadHiveErrorNumbers(String state, int code, String message, ErrorCategory expected) {
        EngineError e = new HiveErrors().classifyEngine(new SQLException(message, state, code), message);
        assertEquals(expected, e.category(), message);
    }

    /** Captured from Hive 4.0.1: a failed MapReduce job arrives with SQLSTATE 08S01, the class of lost connections. */
    @Test
    void shouldTreatAFailedHiveJobAsTheSqlsFailureNotALostConnection() {
        EngineError job = classifier.classify(new SQLException(
                "Error while compiling statement: FAILED: Execution Error, return code 2 from org.apache.hadoop.hive.ql.exec.mr.MapRedTask", "08S01", 2));
        assertFalse(job.infrastructure());
        assertEquals(ErrorCategory.UNKNOWN, job.category());
        assertTrue(classifier.classify(new SQLException(
                "Could not open client transport with JDBC Uri: jdbc:hive2://127.0.0.1:1/default: java.net.ConnectException: Connection refused", "08S01", 0)).infrastructure());
    }

    @Test
    void shouldKeepHivesPossibleColumnNames() {
        String m = "Error while compiling statement: FAILED: SemanticException [Error 10004]: Line 1:7 Invalid table alias or column reference 'nosuchcol': (possible column names are: id, region, amount, dt)";
        EngineError e = new HiveErrors().classifyEngine(new SQLException(m, "42000", 10004), m);
        assertEquals("nosuchcol", e.identifier());
        assertEquals(List.of("id", "region", "amount", "dt"), e.candidates());
    }

    @Test
    void shouldReadTimeoutsAndLostServers() {
        assertEquals(ErrorCategory.TIMEOUT, classifier.classify(new SQLTimeoutException("Query timed out after 3 seconds")).category());
        assertTrue(classifier.classify(new SQLException("Could not open client transport with JDBC Uri: jdbc:hive2://127.0.0.1:1/default", "08S01")).infrastructure());
    }
}
