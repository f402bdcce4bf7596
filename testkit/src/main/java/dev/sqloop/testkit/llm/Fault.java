package dev.sqloop.testkit.llm;

/** The mistakes the oracle makes on a first attempt. */
public enum Fault {
    WRONG_COLUMN,
    WRONG_TABLE,
    MISSING_GROUP_BY,
    FOREIGN_FUNCTION,
    TYPE_MISMATCH,
    SYNTAX_SLIP,
    /** The first keyword misspelt ({@code SELEC …}): still SQL in shape, a syntax error to the parser. */
    KEYWORD_TYPO,
    WRITE_STATEMENT,
    PROSE,
    /** Answers the gold SQL at once. */
    NONE
}
