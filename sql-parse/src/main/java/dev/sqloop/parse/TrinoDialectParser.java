package dev.sqloop.parse;

import dev.sqloop.common.Dialect;
import io.trino.sql.parser.ParsingException;
import io.trino.sql.parser.SqlParser;
import io.trino.sql.tree.AliasedRelation;
import io.trino.sql.tree.AllColumns;
import io.trino.sql.tree.Cast;
import io.trino.sql.tree.ComparisonExpression;
import io.trino.sql.tree.DefaultTraversalVisitor;
import io.trino.sql.tree.DereferenceExpression;
import io.trino.sql.tree.Expression;
import io.trino.sql.tree.FetchFirst;
import io.trino.sql.tree.FunctionCall;
import io.trino.sql.tree.Identifier;
import io.trino.sql.tree.InListExpression;
import io.trino.sql.tree.InPredicate;
import io.trino.sql.tree.Join;
import io.trino.sql.tree.JoinOn;
import io.trino.sql.tree.JoinUsing;
import io.trino.sql.tree.LambdaArgumentDeclaration;
import io.trino.sql.tree.LambdaExpression;
import io.trino.sql.tree.Lateral;
import io.trino.sql.tree.Limit;
import io.trino.sql.tree.LongLiteral;
import io.trino.sql.tree.Node;
import io.trino.sql.tree.OrderBy;
import io.trino.sql.tree.QualifiedName;
import io.trino.sql.tree.Query;
import io.trino.sql.tree.QueryBody;
import io.trino.sql.tree.QuerySpecification;
import io.trino.sql.tree.Relation;
import io.trino.sql.tree.SampledRelation;
import io.trino.sql.tree.SelectItem;
import io.trino.sql.tree.SetOperation;
import io.trino.sql.tree.SingleColumn;
import io.trino.sql.tree.SortItem;
import io.trino.sql.tree.Statement;
import io.trino.sql.tree.StringLiteral;
import io.trino.sql.tree.SubqueryExpression;
import io.trino.sql.tree.Table;
import io.trino.sql.tree.TableFunctionInvocation;
import io.trino.sql.tree.TableSubquery;
import io.trino.sql.tree.Unnest;
import io.trino.sql.tree.WindowDefinition;
import io.trino.sql.tree.WindowReference;
import io.trino.sql.tree.With;
import io.trino.sql.tree.WithQuery;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Trino's own parser ({@code io.trino:trino-parser}) for the trino and presto dialects. */
public final class TrinoDialectParser implements DialectParser {
    private static final SqlParser PARSER = new SqlParser();

    private final Dialect dialect;

    public TrinoDialectParser(Dialect dialect) {
        this.dialect = dialect;
    }

    @Override
    public String family() {
        return "trino-parser";
    }

    @Override
    public ParsedQuery parse(String sql) throws SqlRejection {
        String body = SqlText.precheck(sql, dialect);
        Statement statement;
        try {
            statement = PARSER.createStatement(body);
        } catch (ParsingException e) {
            throw LeadingKeyword.rejectionFor(body,
                    "line " + e.getLineNumber() + ":" + e.getColumnNumber() + ": " + e.getErrorMessage());
        } catch (StackOverflowError e) {
            throw SqlRejection.syntax("query is nested too deeply to parse");
        }
        if (!(statement instanceof Query query)) {
            throw SqlRejection.notAQuery(statement);
        }
        Extraction x = new Extraction(dialect);
        try {
            x.query(query, null, Map.of());
        } catch (StackOverflowError e) {
            // a flat chain (1 + 1 + … , a AND b AND …) is a tree as deep as it is long
            throw SqlRejection.syntax("the query's expressions are nested too deeply to analyse; write it more simply");
        }
        if (x.failure != null) throw x.failure;
        ParsedQuery parsed = new ParsedQuery(dialect, x.scopes, x.tables, x.functions, x.tableFunctions, x.filters,
                shape(query, x.distinctAggregate, x.anyGroupBy));
        SideEffectPolicy.check(parsed);
        return parsed;
    }

    private static ParsedQuery.QueryShape shape(Query q, boolean distinctAggregate, boolean anyGroupBy) {
        Optional<OrderBy> orderBy = q.getOrderBy();
        Optional<Node> limit = q.getLimit();
        boolean groupBy = anyGroupBy;
        boolean distinct = distinctAggregate;
        if (q.getQueryBody() instanceof QuerySpecification spec) {
            if (orderBy.isEmpty()) orderBy = spec.getOrderBy();
            if (limit.isEmpty()) limit = spec.getLimit();
            distinct |= spec.getSelect().isDistinct();
        }
        List<String> directions = orderBy.map(o -> o.getSortItems().stream()
                .map(s -> s.getOrdering() == SortItem.Ordering.DESCENDING ? "desc" : "asc").toList()).orElse(List.of());
        return new ParsedQuery.QueryShape(groupBy, distinct, directions, limit.map(TrinoDialectParser::rowCount).orElse(null));
    }

    private static Long rowCount(Node limit) {
        Optional<Expression> count = switch (limit) {
            case Limit l -> Optional.of(l.getRowCount());
            case FetchFirst f -> f.getRowCount().or(() -> Optional.of(new LongLiteral("1")));
            default -> Optional.empty();
        };
        return count.filter(LongLiteral.class::isInstance).map(e -> ((LongLiteral) e).getParsedValue()).orElse(null);
    }

    /** A CTE visible by name: its body scope (null while a recursive CTE is being built) and column list. */
    private record Cte(QueryScope body, List<String> columns) {}

    /** Walks one statement, building scopes and collecting tables, functions and filters. */
    private static final class Extraction {
        final List<QueryScope> scopes = new ArrayList<>();
        final List<ObjectName> tables = new ArrayList<>();
        final Set<String> functions = new LinkedHashSet<>();
        final List<ObjectName> tableFunctions = new ArrayList<>();
        final List<ParsedQuery.ValueFilter> filters = new ArrayList<>();
        boolean distinctAggregate;
        boolean anyGroupBy;
        private final Dialect dialect;
        private SqlRejection failure;
        private final TrinoValues valueReader = new TrinoValues();
        private final ExpressionWalker walker = new ExpressionWalker();

        Extraction(Dialect dialect) {
            this.dialect = dialect;
        }

        QueryScope query(Query q, QueryScope parent, Map<String, Cte> ctes) {
            Map<String, Cte> visible = new HashMap<>(ctes);
            if (q.getWith().isPresent()) {
                With with = q.getWith().get();
                for (WithQuery wq : with.getQueries()) {
                    String name = lower(wq.getName().getValue());
                    List<String> cols = wq.getColumnNames().map(l -> l.stream().map(Identifier::getValue).toList()).orElse(List.of());
                    if (with.isRecursive()) visible.put(name, new Cte(null, cols));
                    visible.put(name, new Cte(query(wq.getQuery(), parent, visible), cols));
                }
            }
            QueryScope first = body(q.getQueryBody(), parent, visible);
            q.getOrderBy().ifPresent(o -> walker.process(o, new Ctx(first, visible, Set.of())));
            return first;
        }

        QueryScope body(QueryBody body, QueryScope parent, Map<String, Cte> ctes) {
            switch (body) {
                case QuerySpecification spec -> {
                    return specification(spec, parent, ctes);
                }
                case SetOperation set -> {
                    QueryScope first = null;
                    for (Relation r : set.getRelations()) {
                        QueryScope branch = relationAsQuery(r, parent, ctes);
                        if (first == null) first = branch;
                    }
                    return first;
                }
                case TableSubquery sub -> {
                    return query(sub.getQuery(), parent, ctes);
                }
                default -> {
                    QueryScope opaque = new QueryScope(parent);
                    opaque.markLenient();
                    if (body instanceof Table t) {
                        opaque.addSource(tableSource(t, null, List.of(), ctes));
                        opaque.addOutput(QueryScope.OutputItem.star(null));
                    } else {
                        opaque.addOutput(QueryScope.OutputItem.anonymous());
                    }
                    scopes.add(opaque);
                    return opaque;
                }
            }
        }

        private QueryScope relationAsQuery(Relation r, QueryScope parent, Map<String, Cte> ctes) {
            if (r instanceof QueryBody qb) return body(qb, parent, ctes);
            QueryScope opaque = new QueryScope(parent);
            opaque.markLenient();
            scopes.add(opaque);
            return opaque;
        }

        QueryScope specification(QuerySpecification spec, QueryScope parent, Map<String, Cte> ctes) {
            QueryScope scope = new QueryScope(parent);
            scopes.add(scope);
            spec.getFrom().ifPresent(from -> relation(from, scope, ctes));
            Ctx ctx = new Ctx(scope, ctes, Set.of());
            for (SelectItem item : spec.getSelect().getSelectItems()) {
                switch (item) {
                    case SingleColumn col -> {
                        walker.process(col.getExpression(), ctx);
                        scope.addOutput(col.getAlias().map(a -> QueryScope.OutputItem.aliased(a.getValue()))
                                .orElseGet(() -> implicitName(col.getExpression())));
                    }
                    case AllColumns all -> {
                        if (!all.getAliases().isEmpty()) {
                            all.getAliases().forEach(a -> scope.addOutput(QueryScope.OutputItem.aliased(a.getValue())));
                        } else if (all.getTarget().isPresent()) {
                            Expression target = all.getTarget().get();
                            String qualifier = target instanceof Identifier id ? id.getValue()
                                    : target instanceof DereferenceExpression d && d.getField().isPresent() ? d.getField().get().getValue() : null;
                            if (qualifier == null) scope.markLenient();
                            scope.addOutput(QueryScope.OutputItem.star(qualifier));
                        } else {
                            scope.addOutput(QueryScope.OutputItem.star(null));
                        }
                    }
                    default -> scope.markLenient();
                }
            }
            spec.getWhere().ifPresent(e -> walker.process(e, ctx));
            spec.getWhere().ifPresent(e -> whereMisuses(e, scope));
            spec.getGroupBy().ifPresent(g -> {
                anyGroupBy = true;
                walker.process(g, ctx);
            });
            scope.grouping(grouping(spec));
            spec.getHaving().ifPresent(e -> walker.process(e, ctx));
            for (WindowDefinition w : spec.getWindows()) walker.process(w.getWindow(), ctx);
            spec.getOrderBy().ifPresent(o -> walker.process(o, ctx));
            return scope;
        }

        /** The aggregation check's view of a block (see {@link QueryScope.Grouping}). */
        /** Aggregates and window functions in this block's own WHERE (subqueries are their own blocks). */
        private void whereMisuses(Expression where, QueryScope scope) {
            new DefaultTraversalVisitor<Void>() {
                @Override
                protected Void visitFunctionCall(FunctionCall node, Void context) {
                    String n = lower(node.getName().getSuffix());
                    if (node.getWindow().isPresent()) {
                        scope.addWhereMisuse(new QueryScope.WhereMisuse(true, n, n + "(…) OVER (…)"));
                        return null;
                    }
                    if (FunctionPolicy.aggregate(dialect, n)) scope.addWhereMisuse(new QueryScope.WhereMisuse(false, n, n + "(…)"));
                    return super.visitFunctionCall(node, context);
                }

                @Override
                protected Void visitSubqueryExpression(SubqueryExpression node, Void context) {
                    return null;
                }
            }.process(where, null);
        }

        private static QueryScope.Grouping grouping(QuerySpecification spec) {
            List<String> keys = new ArrayList<>();
            spec.getGroupBy().ifPresent(g -> {
                for (io.trino.sql.tree.GroupingElement el : g.getGroupingElements()) {
                    if (el instanceof io.trino.sql.tree.SimpleGroupBy simple) {
                        simple.getExpressions().forEach(e -> keys.add(QueryScope.lower(io.trino.sql.ExpressionFormatter.formatExpression(e))));
                    } else {
                        keys.add(null);
                    }
                }
            });
            List<QueryScope.Grouping.Item> items = new ArrayList<>();
            for (SelectItem item : spec.getSelect().getSelectItems()) {
                if (item instanceof SingleColumn col) {
                    Expression e = col.getExpression();
                    ObjectName column = e instanceof Identifier id ? new ObjectName(List.of(QueryScope.lower(id.getValue())))
                            : e instanceof DereferenceExpression d && d.getBase() instanceof Identifier b && d.getField().isPresent()
                            ? new ObjectName(List.of(QueryScope.lower(b.getValue()), QueryScope.lower(d.getField().get().getValue()))) : null;
                    items.add(new QueryScope.Grouping.Item(QueryScope.lower(io.trino.sql.ExpressionFormatter.formatExpression(e)), column,
                            col.getAlias().map(a -> QueryScope.lower(a.getValue())).orElse(null)));
                } else {
                    items.add(new QueryScope.Grouping.Item("*", null, null));
                }
            }
            return new QueryScope.Grouping(spec.getGroupBy().isPresent(), java.util.Collections.unmodifiableList(keys), List.copyOf(items));
        }

        private static QueryScope.OutputItem implicitName(Expression e) {
            if (e instanceof Identifier id) return QueryScope.OutputItem.named(id.getValue());
            if (e instanceof DereferenceExpression d && d.getField().isPresent()) {
                return QueryScope.OutputItem.named(d.getField().get().getValue());
            }
            return QueryScope.OutputItem.anonymous();
        }

        void relation(Relation r, QueryScope scope, Map<String, Cte> ctes) {
            switch (r) {
                case Join join -> {
                    relation(join.getLeft(), scope, ctes);
                    relation(join.getRight(), scope, ctes);
                    join.getCriteria().ifPresent(c -> {
                        if (c instanceof JoinOn on) {
                            walker.process(on.getExpression(), new Ctx(scope, ctes, Set.of()));
                            joinKeys(on.getExpression(), scope);
                        }
                        else if (c instanceof JoinUsing using) using.getColumns().forEach(id -> scope.addUsingColumn(id.getValue()));
                        else scope.markLenient();
                    });
                }
                case AliasedRelation aliased -> {
                    String alias = aliased.getAlias().getValue();
                    List<String> cols = identifiers(aliased.getColumnNames());
                    scope.addSource(source(aliased.getRelation(), alias, cols, scope, ctes));
                }
                case SampledRelation sampled -> relation(sampled.getRelation(), scope, ctes);
                default -> scope.addSource(source(r, null, List.of(), scope, ctes));
            }
        }

        private QueryScope.Source source(Relation r, String alias, List<String> cols, QueryScope scope, Map<String, Cte> ctes) {
            switch (r) {
                case Table t -> {
                    return tableSource(t, alias, cols, ctes);
                }
                case TableSubquery sub -> {
                    return new QueryScope.Source(alias, null, query(sub.getQuery(), scope.parent(), ctes), cols, false);
                }
                case Lateral lateral -> {
                    return new QueryScope.Source(alias, null, query(lateral.getQuery(), scope, ctes), cols, false);
                }
                case Unnest unnest -> {
                    unnest.getExpressions().forEach(e -> walker.process(e, new Ctx(scope, ctes, Set.of())));
                    return new QueryScope.Source(alias, null, null, cols, true);
                }
                case TableFunctionInvocation tf -> {
                    tableFunctions.add(name(tf.getName()));
                    // the arguments are read like any FROM item: input => TABLE(secret) reads secret
                    QueryScope args = new QueryScope(scope);
                    for (io.trino.sql.tree.TableFunctionArgument a : tf.getArguments()) {
                        switch (a.getValue()) {
                            case io.trino.sql.tree.TableFunctionTableArgument t -> relation(t.getTable(), args, ctes);
                            case io.trino.sql.tree.Expression e -> walker.process(e, new Ctx(args, ctes, Set.of()));
                            default -> { }
                        }
                    }
                    return new QueryScope.Source(alias, null, null, cols, true);
                }
                case SampledRelation sampled -> {
                    return source(sampled.getRelation(), alias, cols, scope, ctes);
                }
                case AliasedRelation inner -> {
                    return source(inner.getRelation(), inner.getAlias().getValue(),
                            identifiers(inner.getColumnNames()), scope, ctes);
                }
                case Join join -> {
                    relation(join, scope, ctes);
                    return new QueryScope.Source(alias, null, null, cols, true);
                }
                default -> {
                    if (r instanceof QueryBody qb) return new QueryScope.Source(alias, null, body(qb, scope.parent(), ctes), cols, false);
                    scope.markLenient();
                    return new QueryScope.Source(alias, null, null, cols, true);
                }
            }
        }

        private QueryScope.Source tableSource(Table t, String alias, List<String> cols, Map<String, Cte> ctes) {
            ObjectName name = name(t.getName());
            if (name.size() == 1 && ctes.containsKey(name.last())) {
                Cte cte = ctes.get(name.last());
                List<String> columns = cols.isEmpty() ? cte.columns() : cols;
                return new QueryScope.Source(alias == null ? name.last() : alias, null, cte.body(), columns, cte.body() == null);
            }
            tables.add(name);
            return new QueryScope.Source(alias, name, null, cols, false);
        }

        private static List<String> identifiers(List<Identifier> ids) {
            return ids == null ? List.of() : ids.stream().map(Identifier::getValue).toList();
        }

        /** The column = column equalities of an ON condition, through its ANDs. */
        private static void joinKeys(Expression on, QueryScope scope) {
            if (on instanceof io.trino.sql.tree.LogicalExpression logical
                    && logical.getOperator() == io.trino.sql.tree.LogicalExpression.Operator.AND) {
                logical.getTerms().forEach(t -> joinKeys(t, scope));
            } else if (on instanceof ComparisonExpression cmp && cmp.getOperator() == ComparisonExpression.Operator.EQUAL) {
                ObjectName left = columnOf(cmp.getLeft());
                ObjectName right = columnOf(cmp.getRight());
                if (left != null && right != null) scope.addJoinKey(new QueryScope.JoinKey(left, right));
            }
        }

        private static ObjectName columnOf(Expression e) {
            return switch (e) {
                case Identifier id -> ObjectName.of(id.getValue());
                case DereferenceExpression d when DereferenceExpression.getQualifiedName(d) != null -> name(DereferenceExpression.getQualifiedName(d));
                default -> null;
            };
        }

        private static ObjectName name(QualifiedName q) {
            return new ObjectName(q.getOriginalParts().stream().map(Identifier::getValue).toList());
        }

        private record Ctx(QueryScope scope, Map<String, Cte> ctes, Set<String> lambdaNames) {}

        /** Collects column references, functions, subqueries and literal filters from expressions. */
        private final class ExpressionWalker extends DefaultTraversalVisitor<Ctx> {
            @Override
            protected Void visitIdentifier(Identifier node, Ctx ctx) {
                if (!ctx.lambdaNames().contains(lower(node.getValue()))) ctx.scope().addColumnRef(ObjectName.of(node.getValue()));
                return null;
            }

            @Override
            protected Void visitDereferenceExpression(DereferenceExpression node, Ctx ctx) {
                QualifiedName q = DereferenceExpression.getQualifiedName(node);
                if (q == null) return process(node.getBase(), ctx);
                ObjectName ref = name(q);
                if (!ctx.lambdaNames().contains(ref.parts().getFirst())) ctx.scope().addColumnRef(ref);
                return null;
            }

            @Override
            protected Void visitFunctionCall(FunctionCall node, Ctx ctx) {
                functions.add(lower(node.getName().getSuffix()));
                if (node.isDistinct()) distinctAggregate = true;
                values(node);
                return super.visitFunctionCall(node, ctx);
            }

            @Override
            protected Void visitFormat(io.trino.sql.tree.Format node, Ctx ctx) {
                functions.add("format");
                values(node);
                return super.visitFormat(node, ctx);
            }

            /** The value-size bounds on this call and what it is built from. */
            private void values(Expression e) {
                // an expression inside one already judged was judged with it: the estimate checks every call it contains
                if (failure == null && !valueReader.read(e)) failure = ValueSizePolicy.check(dialect, valueReader.of(e));
            }

            @Override
            protected Void visitWindowReference(WindowReference node, Ctx ctx) {
                return null;
            }

            @Override
            protected Void visitCast(Cast node, Ctx ctx) {
                return process(node.getExpression(), ctx);
            }

            @Override
            protected Void visitSubqueryExpression(SubqueryExpression node, Ctx ctx) {
                query(node.getQuery(), ctx.scope(), ctx.ctes());
                return null;
            }

            @Override
            protected Void visitLambdaExpression(LambdaExpression node, Ctx ctx) {
                Set<String> names = new HashSet<>(ctx.lambdaNames());
                for (LambdaArgumentDeclaration arg : node.getArguments()) names.add(lower(arg.getName().getValue()));
                return process(node.getBody(), new Ctx(ctx.scope(), ctx.ctes(), names));
            }

            @Override
            protected Void visitComparisonExpression(ComparisonExpression node, Ctx ctx) {
                if (node.getOperator() == ComparisonExpression.Operator.EQUAL
                        || node.getOperator() == ComparisonExpression.Operator.NOT_EQUAL) {
                    filter(node.getLeft(), List.of(node.getRight()), ctx);
                    filter(node.getRight(), List.of(node.getLeft()), ctx);
                }
                return super.visitComparisonExpression(node, ctx);
            }

            @Override
            protected Void visitInPredicate(InPredicate node, Ctx ctx) {
                if (node.getValueList() instanceof InListExpression list) filter(node.getValue(), list.getValues(), ctx);
                return super.visitInPredicate(node, ctx);
            }

            private void filter(Expression column, List<Expression> values, Ctx ctx) {
                ObjectName ref = switch (column) {
                    case Identifier id -> ObjectName.of(id.getValue());
                    case DereferenceExpression d when DereferenceExpression.getQualifiedName(d) != null ->
                            name(DereferenceExpression.getQualifiedName(d));
                    default -> null;
                };
                if (ref == null || values.isEmpty() || !values.stream().allMatch(StringLiteral.class::isInstance)) return;
                filters.add(new ParsedQuery.ValueFilter(ctx.scope(), ref,
                        values.stream().map(v -> ((StringLiteral) v).getValue()).toList()));
            }
        }
    }

    private static String lower(String s) {
        return s.toLowerCase(Locale.ROOT);
    }
}
