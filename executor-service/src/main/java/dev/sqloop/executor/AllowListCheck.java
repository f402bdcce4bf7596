package dev.sqloop.executor;

import dev.sqloop.common.datasource.AllowList;
import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.error.ErrorCategory;
import dev.sqloop.parse.DialectParsers;
import dev.sqloop.parse.ObjectName;
import dev.sqloop.parse.ParsedQuery;
import dev.sqloop.parse.SqlRejection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The executor's own parse of a query the guard let through: it enforces the datasource's allow-lists (catalogs,
 * schemas, tables) on every table the tree reads — table-function arguments, lateral and nested subqueries
 * included — and the side-effect policy (functions that run SQL text or touch the server), so both hold even
 * for a message that never went through the validator.
 *
 * <p>A text the parser cannot read is refused on every datasource: no check of this executor could read it (the
 * validator parses with the same parser and refuses the same texts as syntax errors, so the pipeline loses nothing).
 */
final class AllowListCheck {
    private AllowListCheck() {}

    /**
     * Where the datasource's sessions resolve a name written without its catalog or schema.
     *
     * @param catalog the session's catalog, null when unknown
     * @param schemas the schemas a bare table name is looked up in, as the engine names them
     *     ({@link dev.sqloop.common.datasource.SessionSchemas#searchPath})
     */
    record SessionScope(String catalog, List<String> schemas, Map<String, Set<String>> implicit) {
        /**
         * @param implicit per schema the engine searches for a bare name without the path naming it (PostgreSQL's
         *     {@code pg_catalog}, searched first), the relation names it holds there
         *     ({@link dev.sqloop.common.datasource.SessionSchemas#implicitRelations})
         */
        SessionScope {
            schemas = List.copyOf(schemas);
            implicit = Map.copyOf(implicit);
        }

        SessionScope(String catalog, List<String> schemas) {
            this(catalog, schemas, Map.of());
        }
    }

    /**
     * What the query's own text decides: refused, allowed, or allowed as far as its qualified names go, with names written
     * without their schema (or catalog) left to judge against where the session running it resolves them.
     */
    sealed interface Verdict permits Refused, Allowed, NeedsSession {}

    record Refused(EngineError error) implements Verdict {}

    record Allowed() implements Verdict {}

    /** @param names the names written without the schema or catalog the allow-list restricts */
    record NeedsSession(List<ObjectName> names) implements Verdict {}

    /** Null when the query may run, else the error to report; {@code session} is asked only when a name needs it. */
    static EngineError refusal(DatasourceConfig ds, String query, Supplier<SessionScope> session) {
        return switch (check(ds, query)) {
            case Refused r -> r.error();
            case Allowed a -> null;
            case NeedsSession n -> onSession(ds, n, session.get());
        };
    }

    /** The verdict from the query alone, before any connection. */
    static Verdict check(DatasourceConfig ds, String query) {
        AllowList list = ds.allowList();
        ParsedQuery parsed;
        try {
            parsed = parse(ds, query);
        } catch (SqlRejection r) {
            if (r.category() != ErrorCategory.SYNTAX_ERROR && r.category() != ErrorCategory.UNKNOWN) {
                return new Refused(EngineError.sql(r.category(), "refused by the executor: " + r.getMessage()));
            }
            // fail closed on every dialect: what this parser cannot read, no check of this executor has seen (the
            // validator parses with the same parser, so no query it passed lands here)
            return new Refused(EngineError.sql(r.category(), "refused by the executor (its checks cannot read the query): "
                    + r.getMessage()));
        } catch (RuntimeException | StackOverflowError e) {
            return new Refused(EngineError.sql(ErrorCategory.SYNTAX_ERROR,
                    "refused by the executor: the query could not be analysed; write it more simply"));
        }
        // the dialect's function allow-list (refused functions already failed the parse): a name it does not hold
        List<String> unlisted = dev.sqloop.parse.FunctionPolicy.unlisted(parsed, ds.safeguards().functions());
        if (!unlisted.isEmpty()) {
            String f = unlisted.getFirst();
            return new Refused(EngineError.sql(ErrorCategory.UNSUPPORTED_FUNCTION, "refused by the executor: "
                    + dev.sqloop.parse.FunctionPolicy.unlistedReason(ds.dialect(), f), f, List.of()));
        }
        if (!list.restricts()) return new Allowed();
        for (ObjectName t : parsed.tables()) {
            // the parts as the engine looks them up: on PostgreSQL "Sales" is not sales, and only an entry for it admits it
            if (!allowed(list, t.exact())) {
                return new Refused(EngineError.sql(ErrorCategory.TABLE_NOT_FOUND, "refused by the executor: table " + t.text()
                        + " is not in the allow-list of datasource " + ds.name(), t.text(), List.of()));
            }
        }
        // A name without its schema (or catalog) has none to check: the engine resolves it where the session points,
        // which must itself be allowed, else a bare name reads a schema the list leaves out
        List<ObjectName> unqualified = parsed.tables().stream()
                .filter(t -> t.parts().size() == 1 && !ds.allowedSchemas().isEmpty() || t.parts().size() <= 2 && !ds.allowedCatalogs().isEmpty())
                .toList();
        return unqualified.isEmpty() ? new Allowed() : new NeedsSession(unqualified);
    }

    /**
     * The query's tree: JSqlParser's, or on a chDB datasource ClickHouse's own ({@link ClickHouseEngineParse}) for a
     * lambda or ARRAY JOIN (which JSqlParser reads into a wrong tree) and for what JSqlParser refuses as syntax — as the
     * validator parses it, so a query it passed is read here too.
     */
    private static ParsedQuery parse(DatasourceConfig ds, String query) throws SqlRejection {
        dev.sqloop.parse.ClickHouseAstParser engine = ClickHouseEngineParse.of(ds);
        if (engine != null && dev.sqloop.parse.ClickHouseAstParser.needsEngineParser(query)) return engine.parse(query);
        try {
            return DialectParsers.forDialect(ds.dialect()).parse(query);
        } catch (SqlRejection r) {
            if (engine == null || r.category() != ErrorCategory.SYNTAX_ERROR) throw r;
            return engine.parse(query);
        }
    }

    /** Null when the names left to the session resolve inside the allow-list where {@code scope} points, else the error. */
    static EngineError onSession(DatasourceConfig ds, NeedsSession pending, SessionScope scope) {
        AllowList list = ds.allowList();
        for (ObjectName t : pending.names()) {
            boolean bare = t.parts().size() == 1 && !ds.allowedSchemas().isEmpty();
            boolean noCatalog = t.parts().size() <= 2 && !ds.allowedCatalogs().isEmpty();
            String part = null;
            String where = null;
            if (noCatalog && (scope.catalog() == null || !list.catalogAllowed(scope.catalog()))) {
                part = "catalog";
                where = scope.catalog() == null ? "no known catalog" : "catalog " + scope.catalog();
            } else if (bare && !list.bareNamesAllowed(scope.schemas())) {
                part = "schema";
                where = scope.schemas().isEmpty() ? "no known schema"
                        : (scope.schemas().size() == 1 ? "schema " : "schemas ") + String.join(", ", scope.schemas());
            }
            if (part != null) {
                return EngineError.sql(ErrorCategory.TABLE_NOT_FOUND, "refused by the executor: table " + t.text()
                        + " is written without its " + part + ", and datasource " + ds.name() + " resolves such names in "
                        + where + ", outside its allow-list: write it with an allowed " + part, t.text(), List.of());
            }
            // a schema searched before the path (PostgreSQL's pg_catalog) takes the names it holds: a bare pg_stats reads
            // the statistics, most common values included, of tables outside the list
            if (bare) {
                for (Map.Entry<String, Set<String>> e : scope.implicit().entrySet()) {
                    if (e.getValue().contains(t.exact().getFirst()) && !list.schemaAllowed(e.getKey())) {
                        return EngineError.sql(ErrorCategory.TABLE_NOT_FOUND, "refused by the executor: table " + t.text()
                                + " is written without its schema, and datasource " + ds.name() + " resolves it in the system"
                                + " schema " + e.getKey() + ", outside its allow-list", t.text(), List.of());
                    }
                }
            }
        }
        return null;
    }

    /** {@code table}, {@code schema.table} or {@code catalog.schema.table}; anything longer is never allowed. */
    static boolean allowed(AllowList list, List<String> parts) {
        return switch (parts.size()) {
            case 1 -> list.tableAllowed(null, null, parts.get(0));
            case 2 -> list.tableAllowed(null, parts.get(0), parts.get(1));
            case 3 -> list.tableAllowed(parts.get(0), parts.get(1), parts.get(2));
            default -> false;
        };
    }
}
