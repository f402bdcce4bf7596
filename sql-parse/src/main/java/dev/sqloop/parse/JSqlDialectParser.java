package dev.sqloop.parse;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.sql.Identifiers;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.expression.AnalyticExpression;
import net.sf.jsqlparser.expression.CastExpression;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.ExpressionVisitorAdapter;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.expression.LambdaExpression;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.expression.StringValue;
import net.sf.jsqlparser.expression.WindowDefinition;
import net.sf.jsqlparser.expression.operators.relational.EqualsTo;
import net.sf.jsqlparser.expression.operators.relational.ExpressionList;
import net.sf.jsqlparser.expression.operators.relational.InExpression;
import net.sf.jsqlparser.expression.operators.relational.NotEqualsTo;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.Statements;
import net.sf.jsqlparser.statement.select.AllColumns;
import net.sf.jsqlparser.statement.select.AllTableColumns;
import net.sf.jsqlparser.statement.select.FromItem;
import net.sf.jsqlparser.statement.select.Join;
import net.sf.jsqlparser.statement.select.LateralSubSelect;
import net.sf.jsqlparser.statement.select.LateralView;
import net.sf.jsqlparser.statement.select.OrderByElement;
import net.sf.jsqlparser.statement.select.ParenthesedFromItem;
import net.sf.jsqlparser.statement.select.ParenthesedSelect;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.SelectItem;
import net.sf.jsqlparser.statement.select.SetOperationList;
import net.sf.jsqlparser.statement.select.TableFunction;
import net.sf.jsqlparser.statement.select.WithItem;

/**
 * JSqlParser ({@code com.github.jsqlparser}) for hive, sparksql, postgres and duckdb, plus the checks its
 * "is a Select" answer does not make: {@code SELECT … INTO}, data-modifying CTEs, {@code FOR UPDATE/SHARE}.
 */
public final class JSqlDialectParser implements DialectParser {
    /** No real query comes near it: the lexical pre-check bounds nesting, where JSqlParser's cost grows. */
    private static final long PARSE_TIMEOUT_MS = 2_000;
    /** Words JSqlParser may hand over as a column that are values, not columns. */
    private static final Set<String> NOT_COLUMNS = Set.of("true", "false", "null", "current_date", "current_time",
            "current_timestamp", "localtime", "localtimestamp", "current_user", "session_user", "user", "current_schema",
            "current_catalog", "current_role");

    /** PostgreSQL XML expressions that are syntax (SQL/XML), not functions of the catalog. */
    private static final Set<String> XML_SYNTAX = Set.of("xmlparse", "xmlserialize", "xmlelement", "xmlforest",
            "xmlroot", "xmlpi", "xmlexists", "xmlconcat", "xmlattributes");

    private final Dialect dialect;
    private final boolean hiveLike;

    public JSqlDialectParser(Dialect dialect) {
        this.dialect = dialect;
        this.hiveLike = dialect == Dialect.HIVE || dialect == Dialect.SPARKSQL;
    }

    @Override
    public String family() {
        return "jsqlparser";
    }

    @Override
    public ParsedQuery parse(String sql) throws SqlRejection {
        String body = SqlText.precheck(sql, dialect);
        Statements statements;
        try {
            // Hive and Spark read "x" as a string and honour backslash escapes; Postgres and DuckDB do neither.
            statements = JSqlStatements.parse(body, p -> p
                    .withSquareBracketQuotation(false)
                    .withBackslashEscapeCharacter(hiveLike || dialect == Dialect.CLICKHOUSE)
                    .withDoubleQuotedStrings(hiveLike), PARSE_TIMEOUT_MS);
        } catch (JSQLParserException e) {
            throw LeadingKeyword.rejectionFor(body, firstLine(e));
        } catch (JSqlStatements.TimedOut e) {
            throw SqlRejection.syntax("the query did not parse within " + PARSE_TIMEOUT_MS + " ms; write it more simply");
        } catch (StackOverflowError e) {
            throw SqlRejection.syntax("query is nested too deeply to parse");
        }
        if (statements.size() != 1) throw SqlRejection.readOnly("exactly one statement is allowed, found " + statements.size(), ";");
        Statement statement = statements.getFirst();
        if (!(statement instanceof Select select)) {
            throw SqlRejection.notAQuery(statement);
        }
        Extraction x = new Extraction();
        try {
            x.select(select, null, Map.of());
        } catch (StackOverflowError e) {
            // a flat chain (1 + 1 + … , a AND b AND …) is a tree as deep as it is long
            throw SqlRejection.syntax("the query's expressions are nested too deeply to analyse; write it more simply");
        }
        ParsedQuery parsed = new ParsedQuery(dialect, x.scopes, x.tables, x.functions, x.tableFunctions, x.filters,
                shape(select, x.distinctAggregate, x.anyGroupBy));
        SideEffectPolicy.check(parsed);
        RegexPolicy.check(body, dialect, RegexPolicy.Mode.CHECKED);
        return parsed;
    }

    private static String firstLine(JSQLParserException e) {
        Throwable t = e.getCause() != null ? e.getCause() : e;
        String m = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
        // JavaCC lists every expected token after the position; the position and the offending token are enough.
        int cut = m.indexOf("\n");
        String head = cut < 0 ? m : m.substring(0, cut);
        int expect = head.indexOf("Was expecting");
        head = expect < 0 ? head : head.substring(0, expect);
        int prefix = head.indexOf("ParseException: ");
        return (prefix < 0 ? head : head.substring(prefix + "ParseException: ".length())).strip();
    }

    private static ParsedQuery.QueryShape shape(Select select, boolean distinctAggregate, boolean anyGroupBy) {
        Select s = select;
        while (s instanceof ParenthesedSelect p && p.getOrderByElements() == null && p.getLimit() == null) s = p.getSelect();
        boolean groupBy = anyGroupBy;
        boolean distinct = distinctAggregate;
        Long limit = null;
        if (s instanceof PlainSelect ps) {
            distinct |= ps.getDistinct() != null;
            if (ps.getTop() != null && ps.getTop().getExpression() instanceof LongValue lv) limit = lv.getValue();
        }
        if (s.getLimit() != null && s.getLimit().getRowCount() instanceof LongValue lv) limit = lv.getValue();
        if (s.getFetch() != null) limit = s.getFetch().getExpression() instanceof LongValue lv ? lv.getValue() : s.getFetch().getRowCount();
        List<String> directions = s.getOrderByElements() == null ? List.of()
                : s.getOrderByElements().stream().map(o -> o.isAsc() ? "asc" : "desc").toList();
        return new ParsedQuery.QueryShape(groupBy, distinct, directions, limit);
    }

    private record Cte(QueryScope body, List<String> columns) {}

    private record Ctx(QueryScope scope, Map<String, Cte> ctes, Set<String> lambdaNames) {}

    /** Walks one statement, building scopes and collecting tables, functions and filters. */
    private final class Extraction {
        final List<QueryScope> scopes = new ArrayList<>();
        final List<ObjectName> tables = new ArrayList<>();
        final Set<String> functions = new LinkedHashSet<>();
        final List<ObjectName> tableFunctions = new ArrayList<>();
        final List<ParsedQuery.ValueFilter> filters = new ArrayList<>();
        boolean distinctAggregate;
        boolean anyGroupBy;
        private SqlRejection failure;
        private final ExpressionWalker walker = new ExpressionWalker();
        private final JSqlValues valueReader = new JSqlValues(hiveLike);

        QueryScope select(Select s, QueryScope parent, Map<String, Cte> ctes) throws SqlRejection {
            if (s.getForMode() != null || s.getForUpdate() != null || s.getForUpdateTable() != null) {
                throw SqlRejection.readOnly("SELECT … FOR UPDATE/SHARE takes row locks", "FOR " + s.getForMode());
            }
            Map<String, Cte> visible = new HashMap<>(ctes);
            if (s.getWithItemsList() != null) {
                for (WithItem<?> wi : s.getWithItemsList()) {
                    String name = QueryScope.lower(unquote(wi.getAliasName()));
                    // getSelect() would cast: ask for the statement itself, and accept only a query.
                    if (!(wi.getStatement() instanceof ParenthesedSelect body)) {
                        String kind = wi.getStatement() == null ? "empty" : wi.getStatement().getClass().getSimpleName().replace("Parenthesed", "");
                        throw SqlRejection.readOnly("data-modifying " + kind.toUpperCase(Locale.ROOT) + " inside WITH " + name, name);
                    }
                    List<String> cols = new ArrayList<>();
                    if (wi.getWithItemList() != null) {
                        for (SelectItem<?> item : wi.getWithItemList()) cols.add(unquote(item.toString()));
                    }
                    if (wi.isRecursive() || s.getWithItemsList().stream().anyMatch(WithItem::isRecursive)) {
                        visible.put(name, new Cte(null, cols));
                    }
                    visible.put(name, new Cte(select(body, parent, visible), cols));
                }
            }
            QueryScope first = switch (s) {
                case PlainSelect ps -> plain(ps, parent, visible);
                case SetOperationList set -> {
                    QueryScope head = null;
                    for (Select branch : set.getSelects()) {
                        QueryScope b = select(branch, parent, visible);
                        if (head == null) head = b;
                    }
                    yield head;
                }
                case LateralSubSelect l -> select(l.getSelect(), parent, visible);
                case ParenthesedSelect p -> select(p.getSelect(), parent, visible);
                case net.sf.jsqlparser.statement.select.PivotQuery pq -> {
                    // DuckDB's PIVOT statement: its source is a FROM item like any other (the allow-list must see it)
                    QueryScope scope = new QueryScope(parent);
                    scope.markLenient();
                    scope.addOutput(QueryScope.OutputItem.star(null));
                    scopes.add(scope);
                    if (pq.getFromItem() == null) throw SqlRejection.syntax("PIVOT without a source");
                    fromItem(pq.getFromItem(), scope, visible);
                    Ctx ctx = new Ctx(scope, visible, Set.of());
                    if (pq.getOnExpressions() != null) for (Expression e : pq.getOnExpressions()) walk(e, ctx);
                    yield scope;
                }
                case net.sf.jsqlparser.statement.select.TableStatement ts -> {
                    QueryScope scope = new QueryScope(parent);
                    scopes.add(scope);
                    ObjectName name = name(ts.getTable().getFullyQualifiedName());
                    if (!(name.size() == 1 && visible.containsKey(name.last()))) tables.add(name);
                    scope.markLenient();
                    scope.addOutput(QueryScope.OutputItem.star(null));
                    yield scope;
                }
                case net.sf.jsqlparser.statement.select.Values v -> {
                    QueryScope scope = new QueryScope(parent);
                    scopes.add(scope);
                    scope.markLenient();
                    scope.addOutput(QueryScope.OutputItem.anonymous());
                    if (v.getExpressions() != null) for (Expression e : v.getExpressions()) walk(e, new Ctx(scope, visible, Set.of()));
                    yield scope;
                }
                // a query form this walker does not know could read tables it cannot see: fail closed
                default -> throw SqlRejection.syntax("this form of query (" + s.getClass().getSimpleName()
                        + ") is not supported here; write it as SELECT … FROM …");
            };
            if (s.getOrderByElements() != null) {
                Ctx ctx = new Ctx(first, visible, Set.of());
                for (OrderByElement o : s.getOrderByElements()) walk(o.getExpression(), ctx);
            }
            return first;
        }

        /** The aggregation check's view of a block (see {@link QueryScope.Grouping}). */
        private QueryScope.Grouping grouping(PlainSelect ps) {
            List<String> keys = new ArrayList<>();
            boolean grouped = ps.getGroupBy() != null;
            if (grouped) {
                ExpressionList<?> g = ps.getGroupBy().getGroupByExpressionList();
                if (g != null) for (Object e : g) keys.add(QueryScope.lower(e.toString()));
                if (ps.getGroupBy().getGroupingSets() != null && !ps.getGroupBy().getGroupingSets().isEmpty()) keys.add(null);
                // DuckDB's and Spark's GROUP BY ALL groups by every non-aggregate item: nothing to judge
                if (keys.isEmpty() || keys.equals(List.of("all"))) keys.add(null);
            }
            List<QueryScope.Grouping.Item> items = new ArrayList<>();
            for (SelectItem<?> item : ps.getSelectItems()) {
                Expression e = item.getExpression();
                items.add(new QueryScope.Grouping.Item(QueryScope.lower(String.valueOf(e)), e instanceof Column c ? columnName(c) : null,
                        item.getAlias() == null ? null : QueryScope.lower(unquote(item.getAlias().getName()))));
            }
            return new QueryScope.Grouping(grouped, java.util.Collections.unmodifiableList(keys), List.copyOf(items));
        }

        private QueryScope plain(PlainSelect ps, QueryScope parent, Map<String, Cte> ctes) throws SqlRejection {
            if ((ps.getIntoTables() != null && !ps.getIntoTables().isEmpty()) || ps.getIntoTempTable() != null
                    || ps.getMySqlSelectIntoClause() != null) {
                throw SqlRejection.readOnly("SELECT … INTO creates a table", "INTO");
            }
            QueryScope scope = new QueryScope(parent);
            scopes.add(scope);
            Ctx ctx = new Ctx(scope, ctes, Set.of());
            if (ps.getFromItem() != null) fromItem(ps.getFromItem(), scope, ctes);
            if (ps.getJoins() != null) {
                for (Join j : ps.getJoins()) {
                    fromItem(j.getRightItem() != null ? j.getRightItem() : j.getFromItem(), scope, ctes);
                    if (j.getOnExpressions() != null) {
                        for (Expression on : j.getOnExpressions()) {
                            walk(on, ctx);
                            joinKeys(on, scope);
                        }
                    }
                    if (j.getUsingColumns() != null) j.getUsingColumns().forEach(c -> scope.addUsingColumn(unquote(c.getColumnName())));
                    if (j.isNatural()) scope.markLenient();
                }
            }
            if (ps.getLateralViews() != null) {
                for (LateralView lv : ps.getLateralViews()) {
                    walk(lv.getGeneratorFunction(), ctx);
                    List<String> cols = lv.getColumnAlias() == null ? List.of()
                            : lv.getColumnAlias().getAliasColumns() != null && !lv.getColumnAlias().getAliasColumns().isEmpty()
                            ? lv.getColumnAlias().getAliasColumns().stream().map(c -> unquote(c.name)).toList()
                            : List.of(unquote(lv.getColumnAlias().getName()));
                    String alias = lv.getTableAlias() == null ? null : unquote(lv.getTableAlias().getName());
                    scope.addSource(new QueryScope.Source(alias, null, null, cols, true));
                }
            }
            for (SelectItem<?> item : ps.getSelectItems()) {
                Expression e = item.getExpression();
                if (e instanceof AllColumns) {
                    scope.addOutput(QueryScope.OutputItem.star(null));
                } else if (e instanceof AllTableColumns atc) {
                    scope.addOutput(QueryScope.OutputItem.star(parts(atc.getTable().getFullyQualifiedName()).getLast()));
                } else {
                    walk(e, ctx);
                    if (item.getAlias() != null) scope.addOutput(QueryScope.OutputItem.aliased(unquote(item.getAlias().getName())));
                    else if (e instanceof Column c) scope.addOutput(QueryScope.OutputItem.named(unquote(c.getColumnName())));
                    else scope.addOutput(QueryScope.OutputItem.anonymous());
                }
            }
            walk(ps.getWhere(), ctx);
            whereMisuses(ps.getWhere(), scope);
            walk(ps.getPreWhere(), ctx);
            if (ps.getGroupBy() != null) {
                anyGroupBy = true;
                ExpressionList<?> g = ps.getGroupBy().getGroupByExpressionList();
                if (g != null) for (Object e : g) walk((Expression) e, ctx);
                if (ps.getGroupBy().getGroupingSets() != null) {
                    for (ExpressionList<?> set : ps.getGroupBy().getGroupingSets()) for (Object e : set) walk((Expression) e, ctx);
                }
            }
            scope.grouping(grouping(ps));
            walk(ps.getHaving(), ctx);
            walk(ps.getQualify(), ctx);
            if (ps.getWindowDefinitions() != null) {
                for (WindowDefinition w : ps.getWindowDefinitions()) {
                    if (w.getPartitionExpressionList() != null) for (Object e : w.getPartitionExpressionList()) walk((Expression) e, ctx);
                    if (w.getOrderByElements() != null) for (OrderByElement o : w.getOrderByElements()) walk(o.getExpression(), ctx);
                }
            }
            return scope;
        }

        private void fromItem(FromItem item, QueryScope scope, Map<String, Cte> ctes) throws SqlRejection {
            String alias = item.getAlias() == null ? null : unquote(item.getAlias().getName());
            List<String> cols = item.getAlias() == null || item.getAlias().getAliasColumns() == null ? List.of()
                    : item.getAlias().getAliasColumns().stream().map(c -> unquote(c.name)).toList();
            switch (item) {
                case Table t -> {
                    ObjectName name = name(t.getFullyQualifiedName());
                    if (name.size() == 1 && ctes.containsKey(name.last())) {
                        Cte cte = ctes.get(name.last());
                        scope.addSource(new QueryScope.Source(alias == null ? name.last() : alias, null, cte.body(),
                                cols.isEmpty() ? cte.columns() : cols, cte.body() == null));
                    } else {
                        tables.add(name);
                        scope.addSource(new QueryScope.Source(alias, name, null, cols, false));
                    }
                }
                case LateralSubSelect l -> scope.addSource(new QueryScope.Source(alias, null,
                        select(l.getSelect(), scope, ctes), cols, false));
                case ParenthesedSelect p -> scope.addSource(new QueryScope.Source(alias, null,
                        select(p.getSelect(), scope.parent(), ctes), cols, false));
                case TableFunction tf -> {
                    Function f = tf.getFunction();
                    tableFunctions.add(new ObjectName(f.getMultipartName().stream().map(JSqlDialectParser::unquote).toList()));
                    if (f.getParameters() != null) for (Object e : f.getParameters()) walk((Expression) e, new Ctx(scope, ctes, Set.of()));
                    scope.addSource(new QueryScope.Source(alias, null, null, cols, true));
                }
                case ParenthesedFromItem pf -> {
                    fromItem(pf.getFromItem(), scope, ctes);
                    if (pf.getJoins() != null) {
                        for (Join j : pf.getJoins()) fromItem(j.getRightItem() != null ? j.getRightItem() : j.getFromItem(), scope, ctes);
                    }
                    scope.markLenient();
                }
                default -> {
                    scope.markLenient();
                    scope.addSource(new QueryScope.Source(alias, null, null, cols, true));
                }
            }
        }

        /** Aggregates and window functions in this block's own WHERE (subqueries are their own blocks). */
        private void whereMisuses(Expression where, QueryScope scope) {
            if (where == null) return;
            where.accept(new ExpressionVisitorAdapter<Void>() {
                @Override
                public <S> Void visit(Function f, S context) {
                    List<String> name = f.getMultipartName();
                    String n = name == null || name.isEmpty() ? "" : QueryScope.lower(unquote(name.getLast()));
                    if (FunctionPolicy.aggregate(dialect, n)) scope.addWhereMisuse(new QueryScope.WhereMisuse(false, n, f.toString()));
                    return super.visit(f, context);
                }

                @Override
                public <S> Void visit(AnalyticExpression a, S context) {
                    scope.addWhereMisuse(new QueryScope.WhereMisuse(true, QueryScope.lower(a.getName()), a.toString()));
                    return null;
                }

                @Override
                public <S> Void visit(ParenthesedSelect select, S context) {
                    return null;
                }

                @Override
                public <S> Void visit(Select select, S context) {
                    return null;
                }
            }, null);
        }

        void walk(Expression e, Ctx ctx) throws SqlRejection {
            if (e == null) return;
            e.accept(walker, ctx);
            if (failure != null) throw failure;
        }

        /** Collects column references, functions, subqueries and literal filters from expressions. */
        private final class ExpressionWalker extends ExpressionVisitorAdapter<Void> {
            @Override
            public <S> Void visit(Column column, S context) {
                Ctx ctx = (Ctx) context;
                ObjectName ref = columnName(column);
                if (ref == null || ctx.lambdaNames().contains(ref.parts().getFirst())) return null;
                // user, current_date: a value, unless quoted ("user" is a column of that name)
                if (ref.size() == 1 && NOT_COLUMNS.contains(ref.last()) && !isQuoted(column.getColumnName().strip())) {
                    ctx.scope().addKeywordValue(ref.last());
                    return null;
                }
                // JSqlParser reads DuckDB's `lambda x: x + 1` as a column `lambda` plus a keyword argument `x`.
                if (ref.size() == 1 && dialect == Dialect.DUCKDB && ref.last().equals("lambda")) return null;
                ctx.scope().addColumnRef(ref);
                return null;
            }

            @Override
            public <S> Void visit(Function function, S context) {
                List<String> name = function.getMultipartName();
                // PostgreSQL's XML forms are grammar, not pg_proc entries: recording them made xmlparse "unsupported"
                if (name != null && !name.isEmpty() && !(dialect == Dialect.POSTGRES && name.size() == 1
                        && XML_SYNTAX.contains(QueryScope.lower(unquote(name.getLast()))))) {
                    functions.add(QueryScope.lower(unquote(name.getLast())));
                }
                if (name != null && !name.isEmpty()) values(function);
                if (function.isDistinct()) distinctAggregate = true;
                super.visit(function, context);
                if (function.getKeywordArguments() != null) {
                    Ctx ctx = (Ctx) context;
                    for (Function.KeywordArgument ka : function.getKeywordArguments()) {
                        Set<String> names = new HashSet<>(ctx.lambdaNames());
                        names.add(QueryScope.lower(ka.getKeyword()));
                        if (ka.getExpression() != null) ka.getExpression().accept(this, new Ctx(ctx.scope(), ctx.ctes(), names));
                    }
                }
                return null;
            }

            /** The value-size bounds on every dialect, and Hive/Spark's regex rules, on this call and what it is built from. */
            private void values(Expression e) {
                // an expression inside one already judged was judged with it: the estimate checks every call it contains
                if (failure != null || valueReader.read(e)) return;
                ValueExpr v = valueReader.of(e);
                failure = ValueSizePolicy.check(dialect, v);
                if (failure == null && v instanceof ValueExpr.Call call) failure = RegexPolicy.checkCall(dialect, call);
            }

            @Override
            public <S> Void visit(net.sf.jsqlparser.expression.operators.relational.LikeExpression like, S context) {
                values(like);
                return super.visit(like, context);
            }

            @Override
            public <S> Void visit(net.sf.jsqlparser.expression.operators.arithmetic.Concat concat, S context) {
                values(concat);
                return super.visit(concat, context);
            }

            @Override
            public <S> Void visit(CastExpression cast, S context) {
                if (failure == null && cast.getColDataType() != null && cast.getColDataType().getDataType() != null) {
                    String type = QueryScope.lower(unquote(cast.getColDataType().getDataType().strip()));
                    type = type.substring(type.lastIndexOf('.') + 1); // pg_catalog.regclass
                    if (SideEffectPolicy.isCatalogType(type)) {
                        failure = SqlRejection.readOnly("a cast to " + type + " looks objects up in the catalog by name or"
                                + " number, outside the allow-list", type);
                    } else if (!SideEffectPolicy.isBuiltInType(dialect, cast.getColDataType().getDataType())) {
                        failure = SqlRejection.readOnly("a cast to " + cast.getColDataType().getDataType() + ", which is not a"
                                + " built-in type of " + dialect.displayName() + ": a table's name used as a type reads its"
                                + " columns; cast to a built-in type (integer, numeric, text, date, …)", type);
                    }
                }
                return super.visit(cast, context);
            }

            @Override
            public <S> Void visit(AnalyticExpression expr, S context) {
                functions.add(QueryScope.lower(expr.getName()));
                if (expr.isDistinct()) distinctAggregate = true;
                return super.visit(expr, context);
            }

            @Override
            public <S> Void visit(ParenthesedSelect select, S context) {
                subquery(select, (Ctx) context);
                return null;
            }

            @Override
            public <S> Void visit(Select select, S context) {
                subquery(select, (Ctx) context);
                return null;
            }

            private void subquery(Select select, Ctx ctx) {
                if (failure != null) return;
                try {
                    select(select, ctx.scope(), ctx.ctes());
                } catch (SqlRejection r) {
                    failure = r;
                }
            }

            @Override
            public <S> Void visit(LambdaExpression lambda, S context) {
                Ctx ctx = (Ctx) context;
                Set<String> names = new HashSet<>(ctx.lambdaNames());
                lambda.getIdentifiers().forEach(id -> names.add(QueryScope.lower(unquote(id))));
                lambda.getExpression().accept(this, new Ctx(ctx.scope(), ctx.ctes(), names));
                return null;
            }

            @Override
            public <S> Void visit(EqualsTo expr, S context) {
                filter(expr.getLeftExpression(), List.of(expr.getRightExpression()), (Ctx) context);
                filter(expr.getRightExpression(), List.of(expr.getLeftExpression()), (Ctx) context);
                return super.visit(expr, context);
            }

            @Override
            public <S> Void visit(NotEqualsTo expr, S context) {
                filter(expr.getLeftExpression(), List.of(expr.getRightExpression()), (Ctx) context);
                filter(expr.getRightExpression(), List.of(expr.getLeftExpression()), (Ctx) context);
                return super.visit(expr, context);
            }

            @Override
            public <S> Void visit(InExpression expr, S context) {
                if (expr.getRightExpression() instanceof ExpressionList<?> list) {
                    List<Expression> values = new ArrayList<>();
                    for (Object v : list) values.add((Expression) v);
                    filter(expr.getLeftExpression(), values, (Ctx) context);
                }
                return super.visit(expr, context);
            }

            private void filter(Expression column, List<Expression> values, Ctx ctx) {
                if (!(column instanceof Column c) || values.isEmpty() || !values.stream().allMatch(StringValue.class::isInstance)) return;
                ObjectName ref = columnName(c);
                if (ref == null) return;
                filters.add(new ParsedQuery.ValueFilter(ctx.scope(), ref,
                        values.stream().map(v -> ((StringValue) v).getValue().replace("''", "'")).toList()));
            }
        }
    }

    /** The column = column equalities of an ON condition, through its ANDs. */
    private void joinKeys(Expression on, QueryScope scope) {
        if (on instanceof net.sf.jsqlparser.expression.operators.conditional.AndExpression and) {
            joinKeys(and.getLeftExpression(), scope);
            joinKeys(and.getRightExpression(), scope);
        } else if (on instanceof net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList<?> p && p.size() == 1) {
            joinKeys(p.getFirst(), scope);
        } else if (on instanceof EqualsTo eq && eq.getLeftExpression() instanceof Column l && eq.getRightExpression() instanceof Column r) {
            ObjectName left = columnName(l);
            ObjectName right = columnName(r);
            if (left != null && right != null) scope.addJoinKey(new QueryScope.JoinKey(left, right));
        }
    }

    private ObjectName columnName(Column column) {
        String name = column.getColumnName();
        if (name == null || name.isEmpty()) return null;
        String table = column.getTable() == null ? null : column.getTable().getFullyQualifiedName();
        return name(table == null || table.isEmpty() ? name : table + "." + name);
    }

    /**
     * A dotted name as written, with the spelling the engine looks it up by where a quoted name keeps its case
     * (PostgreSQL: {@code "Album"} is {@code Album}, {@code Album} is {@code album}, {@code ÄRGER} is {@code Ärger}).
     */
    private ObjectName name(String dotted) {
        List<String> raw = split(dotted);
        List<String> parts = raw.stream().map(JSqlDialectParser::unquote).toList();
        if (!dialect.quotedNamesKeepCase()) return new ObjectName(parts);
        return new ObjectName(parts, raw.stream().map(p -> isQuoted(p.strip()) ? unquote(p) : Identifiers.foldUnquoted(p.strip())).toList());
    }

    /** Splits a dotted name outside quotes and removes the quotes of each part. */
    static List<String> parts(String dotted) {
        return split(dotted).stream().map(JSqlDialectParser::unquote).toList();
    }

    /** Splits a dotted name outside quotes, each part as written. */
    private static List<String> split(String dotted) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        char quote = 0;
        for (int i = 0; i < dotted.length(); i++) {
            char c = dotted.charAt(i);
            if (quote != 0) {
                if (c == quote) quote = 0;
                cur.append(c);
            } else if (c == '"' || c == '`') {
                quote = c;
                cur.append(c);
            } else if (c == '.') {
                out.add(cur.toString());
                cur.setLength(0);
            } else {
                cur.append(c);
            }
        }
        out.add(cur.toString());
        return out;
    }

    private static boolean isQuoted(String t) {
        return t.length() >= 2 && (t.charAt(0) == '"' || t.charAt(0) == '`') && t.charAt(t.length() - 1) == t.charAt(0);
    }

    static String unquote(String s) {
        if (s == null) return null;
        String t = s.strip();
        if (isQuoted(t)) {
            char q = t.charAt(0);
            return t.substring(1, t.length() - 1).replace("" + q + q, "" + q);
        }
        return t;
    }
}
