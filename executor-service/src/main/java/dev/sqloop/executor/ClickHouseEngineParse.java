package dev.sqloop.executor;

import dev.sqloop.chdb.ChdbException;
import dev.sqloop.chdb.ChdbExplainAst;
import dev.sqloop.chdb.ChdbUrl;
import dev.sqloop.common.Dialect;
import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.parse.ClickHouseAstParser;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The executor's own parse of ClickHouse SQL JSqlParser cannot read, as the validator's: ClickHouse's {@code EXPLAIN AST}
 * on the in-process chDB of a {@code jdbc:chdb:} datasource (a session of its own with {@code readonly=1}; EXPLAIN AST
 * only parses), read by {@link ClickHouseAstParser} under the same policies. A datasource on a ClickHouse server has none
 * here: what JSqlParser cannot read is refused there, as before.
 */
final class ClickHouseEngineParse {
    private static final Map<String, ClickHouseAstParser> PARSERS = new ConcurrentHashMap<>();

    private ClickHouseEngineParse() {}

    /** The engine parser of {@code ds}, or null when it is not a chDB datasource. */
    static ClickHouseAstParser of(DatasourceConfig ds) {
        if (ds.dialect() != Dialect.CLICKHOUSE || !ChdbUrl.matches(ds.jdbcUrl())) return null;
        return PARSERS.computeIfAbsent(ds.jdbcUrl(), url -> {
            ChdbExplainAst engine = new ChdbExplainAst(ChdbUrl.of(url));
            return new ClickHouseAstParser(query -> {
                try {
                    return engine.ast(query);
                } catch (ChdbException e) {
                    throw ClickHouseAstParser.engineRefusal(e.name(), e.getMessage());
                }
            });
        });
    }
}
