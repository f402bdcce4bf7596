package dev.sqloop.common;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** SQL dialects sqloop generates, validates and executes. */
public enum Dialect {
    TRINO("Trino"),
    PRESTO("Presto"),
    HIVE("HiveQL"),
    SPARKSQL("Spark SQL"),
    POSTGRES("PostgreSQL"),
    DUCKDB("DuckDB"),
    /** ClickHouse: a server over {@code jdbc:clickhouse://}, or chDB in-process on a directory ({@code jdbc:chdb:DIR}). */
    CLICKHOUSE("ClickHouse");

    private final String displayName;

    Dialect(String displayName) {
        this.displayName = displayName;
    }

    /**
     * {@code identifier} quoted for this dialect: backticks on HiveServer2 (Hive, Spark), where a double quote makes a
     * string literal; the standard double quotes elsewhere (ClickHouse reads both as identifiers).
     */
    public String quote(String identifier) {
        String q = this == HIVE || this == SPARKSQL ? "`" : "\"";
        return q + identifier.replace(q, q + q) + q;
    }

    /**
     * True where a quoted name keeps its case and an unquoted one is folded to lower case, so {@code Album} and {@code
     * "Album"} are two names and only one of them finds a table created quoted (PostgreSQL). Trino, Presto, DuckDB, Hive
     * and Spark match names ignoring case, quoted or not.
     */
    public boolean quotedNamesKeepCase() {
        return this == POSTGRES;
    }

    /**
     * True where an unquoted {@code user}, {@code current_date} (the SQL value keywords) is the keyword even when a table
     * of the query has a column of that name, which only the quoted name reads (PostgreSQL reserves them); DuckDB and
     * Spark read the column.
     */
    public boolean keywordsShadowColumns() {
        return this == POSTGRES;
    }

    /** How prompts name the dialect: "Write Trino SQL". */
    public String displayName() {
        return displayName;
    }

    @JsonValue
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    @JsonCreator
    public static Dialect fromWire(String value) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        return switch (v) {
            case "trino" -> TRINO;
            case "presto", "prestodb" -> PRESTO;
            case "hive", "hiveql" -> HIVE;
            case "sparksql", "spark", "spark-sql" -> SPARKSQL;
            case "postgres", "postgresql" -> POSTGRES;
            case "duckdb" -> DUCKDB;
            case "clickhouse", "chdb" -> CLICKHOUSE;
            default -> throw new IllegalArgumentException("unknown dialect '" + value + "' (trino, presto, hive, sparksql, postgres, duckdb, clickhouse)");
        };
    }
}
