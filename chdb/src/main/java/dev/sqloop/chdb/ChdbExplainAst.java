package dev.sqloop.chdb;

import java.util.Map;
import java.util.stream.Collectors;

/**
 * ClickHouse's own parse of a query, {@code EXPLAIN AST}, on the chDB of a {@code jdbc:chdb:} datasource: one session of
 * its own with {@code readonly=1}, opened on first use and kept (its queries run one at a time). {@code EXPLAIN AST}
 * only parses: no table is read, nothing runs, and readonly=1 refuses any setting the text would change. The validator
 * and the executor read the dump with the same parser (sql-parse's {@code ClickHouseAstParser}).
 */
public final class ChdbExplainAst {
    private final ChdbUrl url;
    private ChdbSession session;

    public ChdbExplainAst(ChdbUrl url) {
        this.url = url;
    }

    /** The AST dump of {@code query}, one node a line; the engine's refusal (a syntax error, READONLY) as thrown. */
    public synchronized String ast(String query) throws ChdbException {
        if (session == null) session = Chdb.open(url.directory()).session(Map.of("readonly", "1", "max_execution_time", "5"));
        return session.query("EXPLAIN AST " + query).rows().stream().map(r -> String.valueOf(r.getFirst())).collect(Collectors.joining("\n"));
    }
}
