package dev.sqloop.validator;

import dev.sqloop.chdb.ChdbException;
import dev.sqloop.chdb.ChdbExplainAst;
import dev.sqloop.chdb.ChdbUrl;
import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.datasource.ReadOnlyJdbc;
import dev.sqloop.parse.ClickHouseAstParser;
import dev.sqloop.parse.SqlRejection;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;

/**
 * ClickHouse's own parser for one datasource, as {@link ClickHouseAstParser} asks it: {@code EXPLAIN AST} on the engine
 * the datasource names — chDB in this process for {@code jdbc:chdb:} (a session of its own with {@code readonly=1}, the
 * library the catalog loader already uses), the server over its JDBC driver for {@code jdbc:clickhouse:}
 * ({@code readonly=1} as a server setting). {@code EXPLAIN AST} only parses: no table is read and nothing runs, and
 * readonly=1 refuses any setting the text would change.
 */
public final class ClickHouseExplain {
    private ClickHouseExplain() {}

    /** The engine parser of {@code ds}, a ClickHouse datasource. */
    public static ClickHouseAstParser parser(DatasourceConfig ds) {
        return new ClickHouseAstParser(ChdbUrl.matches(ds.jdbcUrl()) ? inProcess(ChdbUrl.of(ds.jdbcUrl())) : sql -> overJdbc(ds, sql));
    }

    /** chDB in this process ({@link ChdbExplainAst}: one read-only session, kept), its refusals as the parser's. */
    static ClickHouseAstParser.Explain inProcess(ChdbUrl url) {
        ChdbExplainAst engine = new ChdbExplainAst(url);
        return sql -> {
            try {
                return engine.ast(sql);
            } catch (ChdbException e) {
                throw ClickHouseAstParser.engineRefusal(e.name(), e.getMessage());
            }
        };
    }

    private static String overJdbc(DatasourceConfig ds, String query) throws SqlRejection {
        Map<String, String> props = new java.util.LinkedHashMap<>(ds.properties());
        props.put("clickhouse_setting_readonly", "1");
        try (Connection c = ReadOnlyJdbc.open(new DatasourceConfig(ds.name(), ds.dialect(),
                ds.jdbcUrl(), ds.user(), ds.password(), ds.allowedCatalogs(), ds.allowedSchemas(), ds.allowedTables(), ds.rowLimit(),
                ds.queryTimeout(), ds.connectTimeout(), ds.validationMode(), ds.poolSize(), props, ds.safeguards())); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("EXPLAIN AST " + query)) {
            StringBuilder out = new StringBuilder();
            while (rs.next()) out.append(rs.getString(1)).append('\n');
            return out.toString();
        } catch (SQLException e) {
            String message = e.getMessage() == null ? e.toString() : e.getMessage();
            java.util.regex.Matcher name = java.util.regex.Pattern.compile("\\(([A-Z][A-Z0-9_]+)\\)").matcher(message);
            String code = null;
            while (name.find()) code = name.group(1);
            if (code == null) throw new IllegalStateException("ClickHouse server of " + ds.name() + " did not answer EXPLAIN AST: " + message, e);
            throw ClickHouseAstParser.engineRefusal(code, message);
        }
    }
}
