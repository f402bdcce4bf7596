package dev.sqloop.parse;

import dev.sqloop.common.Dialect;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * ClickHouse SQL read by ClickHouse's own parser: the engine's {@code EXPLAIN AST} dump of the query (parse only, nothing
 * runs; the engine session is {@code readonly=1}) is read back into a tree and held to the same policies as a
 * JSqlParser parse: exactly one SELECT (no INTO OUTFILE, FORMAT or SETTINGS), every table it reads (FROM, JOIN,
 * {@code x IN table}, subqueries at any depth) recorded for the allow-list, every function for the function policy
 * ({@link SideEffectPolicy}). Columns are left to the engine (scopes are lenient): the dump does not label a SELECT's
 * clauses, so a column could not be placed in its clause reliably. Anything the reader does not recognise is refused
 * (fail closed). See PARSERS.md: the validator tries JSqlParser first and asks the engine when it cannot parse.
 */
public final class ClickHouseAstParser implements DialectParser {

    /** The engine's {@code EXPLAIN AST} of one statement. */
    @FunctionalInterface
    public interface Explain {
        /**
         * The dump's lines for {@code query} (already prechecked, one statement).
         *
         * @throws SqlRejection the engine's own refusal (its syntax error, a setting readonly forbids)
         * @throws IllegalStateException the engine cannot be reached: the caller refuses with that reason
         */
        String ast(String query) throws SqlRejection;
    }

    /** Node kinds the walker knows; any other is refused, as it could hide a table or a statement it cannot see. */
    private static final Set<String> KNOWN = Set.of("SelectWithUnionQuery", "SelectIntersectExceptQuery", "SelectQuery",
            "ExpressionList", "Identifier", "Function", "Literal", "TablesInSelectQuery", "TablesInSelectQueryElement",
            "TableExpression", "TableIdentifier", "TableJoin", "Subquery", "WithElement", "OrderByElement", "WindowDefinition",
            "WindowListElement", "SampleRatio", "ArrayJoin", "Asterisk", "QualifiedAsterisk", "ColumnsTransformerList",
            "ColumnsExceptTransformer", "ColumnsReplaceTransformer", "ColumnsReplaceTransformer::Replacement",
            "ColumnsApplyTransformer", "ColumnsRegexpMatcher", "ColumnsListMatcher", "QualifiedColumnsRegexpMatcher",
            "QualifiedColumnsListMatcher", "InterpolateElement", "LimitByElement");
    /** Functions whose second argument, written as a bare name, is a table ({@code x IN secrets} reads it). */
    private static final Set<String> IN_FAMILY = Set.of("in", "notin", "globalin", "globalnotin", "nullin", "notnullin",
            "globalnullin", "globalnotnullin", "inignoreset", "notinignoreset", "globalinignoreset", "globalnotinignoreset");
    /** Parser forms that are no callable function: {@code x -> …} is {@code lambda(tuple(x), …)}. */
    private static final Set<String> SYNTAX = Set.of("lambda");
    private static final Pattern LINE = Pattern.compile("^( *)(\\S+)(.*?)(?: \\(children (\\d+)\\))?$");
    private static final Pattern ALIAS = Pattern.compile("^(.*?)(?: \\(alias ([A-Za-z_][A-Za-z0-9_]*)\\))?$");
    private static final Pattern PLAIN_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)*");

    private final Explain explain;

    public ClickHouseAstParser(Explain explain) {
        this.explain = explain;
    }

    /**
     * Whether the text needs ClickHouse's own parser even though JSqlParser may accept it: lambdas and {@code ARRAY JOIN},
     * which JSqlParser reads into a wrong tree (a column named like the lambda's parameter, a join with a table named
     * like the array) instead of refusing.
     */
    public static boolean needsEngineParser(String sql) {
        return sql != null && ClickHouseNames.misreadByJSqlParser(sql);
    }

    /**
     * The engine's refusal of an {@code EXPLAIN AST}, by ClickHouse's error name: its syntax error as a syntax error,
     * readonly's refusal of a setting as a read-only violation, anything else as unknown.
     */
    public static SqlRejection engineRefusal(String errorName, String message) {
        String first = message == null ? "" : message.lines().findFirst().orElse(message).strip();
        return switch (errorName == null ? "" : errorName) {
            case "SYNTAX_ERROR", "TOO_DEEP_AST", "TOO_BIG_AST", "TOO_DEEP_RECURSION" -> SqlRejection.syntax(first);
            case "READONLY" -> SqlRejection.readOnly(first, "SETTINGS");
            default -> new SqlRejection(dev.sqloop.common.error.ErrorCategory.UNKNOWN, "ClickHouse's parser refused the query: " + first, null);
        };
    }

    @Override
    public String family() {
        return "clickhouse-ast";
    }

    @Override
    public ParsedQuery parse(String sql) throws SqlRejection {
        String body = SqlText.precheck(sql, Dialect.CLICKHOUSE);
        // EXPLAIN AST takes options before the statement (graph=1, optimize=1): only a query may follow it here
        if (!ClickHouseNames.startsLikeQuery(body)) throw LeadingKeyword.rejectionFor(body, "a query starts with SELECT or WITH");
        List<String> ctes = ClickHouseNames.check(body);
        Node root = read(explain.ast(body));
        ParsedQuery parsed = new Walk(ctes).query(root);
        SideEffectPolicy.check(parsed);
        return parsed;
    }

    /** One node of the dump: its kind, the rest of its line (name or value, without the alias), its alias, children. */
    record Node(String kind, String text, String alias, List<Node> children) {}

    /** The dump read into a tree; a line that does not fit, or a node whose stated children are not there, is refused. */
    static Node read(String dump) throws SqlRejection {
        List<String> lines = dump.lines().filter(l -> !l.isBlank()).toList();
        if (lines.isEmpty()) throw SqlRejection.syntax("ClickHouse's parser gave no tree for this query");
        int[] at = {0};
        Node root = node(lines, at, 0);
        if (at[0] != lines.size()) throw unreadable("text after the tree's root");
        return root;
    }

    private static Node node(List<String> lines, int[] at, int depth) throws SqlRejection {
        Matcher m = LINE.matcher(lines.get(at[0]));
        if (!m.matches() || m.group(1).length() != depth) throw unreadable("line " + (at[0] + 1));
        at[0]++;
        String kind = m.group(2);
        String rest = m.group(3).strip();
        String text = rest;
        String alias = null;
        if (!kind.equals("Literal")) {
            Matcher a = ALIAS.matcher(rest);
            if (a.matches()) {
                text = a.group(1).strip();
                alias = a.group(2);
            }
        }
        int count = m.group(4) == null ? 0 : Integer.parseInt(m.group(4));
        List<Node> children = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            if (at[0] >= lines.size()) throw unreadable("a node lacks its children");
            children.add(node(lines, at, depth + 1));
        }
        if (at[0] < lines.size()) {
            Matcher next = LINE.matcher(lines.get(at[0]));
            if (next.matches() && next.group(1).length() > depth) throw unreadable("a node has more children than it states");
        }
        return new Node(kind, text, alias, List.copyOf(children));
    }

    private static SqlRejection unreadable(String where) {
        return SqlRejection.syntax("ClickHouse's parse tree could not be read (" + where + "); write the query more simply");
    }

    /**
     * Walks the tree. CTE names are not in the dump ({@code WithElement} has no name): they come from the text
     * ({@link ClickHouseNames}), paired with the WithElements in document order, and are visible in the SELECT that
     * defines them and below it only, as ClickHouse scopes them.
     */
    private static final class Walk {
        private final List<String> cteNames;
        private int nextCte;
        final List<QueryScope> scopes = new ArrayList<>();
        final List<ObjectName> tables = new ArrayList<>();
        final Set<String> functions = new LinkedHashSet<>();
        final List<ObjectName> tableFunctions = new ArrayList<>();

        Walk(List<String> cteNames) {
            this.cteNames = cteNames;
        }

        ParsedQuery query(Node root) throws SqlRejection {
            if (!root.kind().equals("SelectWithUnionQuery")) {
                String kind = root.kind().replaceAll("Query$", "").replaceAll("([a-z])([A-Z])", "$1 $2").toUpperCase(Locale.ROOT);
                throw SqlRejection.readOnly(kind + " statement: sqloop runs read-only queries only; write a single SELECT"
                        + " (or WITH … SELECT) instead", kind);
            }
            // a SelectWithUnionQuery's further children are INTO OUTFILE, FORMAT and SETTINGS
            if (root.children().size() != 1) {
                throw SqlRejection.readOnly("INTO OUTFILE, FORMAT and SETTINGS are not accepted on clickhouse: sqloop reads the"
                        + " answer itself, under the datasource's limits", "INTO OUTFILE");
            }
            union(root, null, Set.of());
            if (nextCte != cteNames.size()) throw unreadable("the query's CTE names do not match its tree");
            return new ParsedQuery(Dialect.CLICKHOUSE, List.copyOf(scopes), List.copyOf(tables), Set.copyOf(functions),
                    List.copyOf(tableFunctions), List.of(), new ParsedQuery.QueryShape(false, false, List.of(), null));
        }

        private void union(Node n, QueryScope parent, Set<String> visible) throws SqlRejection {
            switch (n.kind()) {
                case "SelectWithUnionQuery" -> {
                    if (n.children().size() != 1) throw SqlRejection.readOnly("INTO OUTFILE, FORMAT and SETTINGS are not accepted"
                            + " on clickhouse", "INTO OUTFILE");
                    for (Node c : expect(n.children().getFirst(), "ExpressionList").children()) union(c, parent, visible);
                }
                case "SelectIntersectExceptQuery" -> {
                    for (Node c : n.children()) union(c, parent, visible);
                }
                case "SelectQuery" -> select(n, parent, visible);
                default -> throw unreadable("a " + n.kind() + " where a query stands");
            }
        }

        private void select(Node n, QueryScope parent, Set<String> outer) throws SqlRejection {
            QueryScope scope = new QueryScope(parent);
            scope.markLenient();
            scopes.add(scope);
            Set<String> visible = new HashSet<>(outer);
            List<Node> rest = new ArrayList<>();
            for (Node c : n.children()) {
                // the WITH list comes first: its CTEs are visible in the whole SELECT, their bodies see earlier ones
                if (c.kind().equals("ExpressionList") && !c.children().isEmpty() && rest.isEmpty()
                        && c.children().stream().anyMatch(x -> x.kind().equals("WithElement"))) {
                    for (Node w : c.children()) {
                        if (w.kind().equals("WithElement")) {
                            if (nextCte >= cteNames.size()) throw unreadable("a CTE without a name in the text");
                            String name = cteNames.get(nextCte++);
                            Node body = w.children().size() == 1 ? w.children().getFirst() : null;
                            if (body == null || !body.kind().equals("Subquery")) throw unreadable("a CTE without a query");
                            visible.add(name);
                            expression(body, scope, visible);
                        } else {
                            expression(w, scope, visible);
                        }
                    }
                    continue;
                }
                rest.add(c);
            }
            for (Node c : rest) {
                if (c.kind().equals("TablesInSelectQuery")) {
                    for (Node element : c.children()) {
                        for (Node part : expect(element, "TablesInSelectQueryElement").children()) {
                            if (part.kind().equals("TableExpression")) from(part, scope, visible);
                            else expression(part, scope, visible);
                        }
                    }
                } else {
                    expression(c, scope, visible);
                }
            }
        }

        private void from(Node table, QueryScope scope, Set<String> visible) throws SqlRejection {
            for (Node t : table.children()) {
                switch (t.kind()) {
                    case "TableIdentifier" -> {
                        ObjectName name = name(t.text());
                        if (name.size() == 1 && visible.contains(name.last())) {
                            scope.addSource(new QueryScope.Source(t.alias() == null ? name.last() : t.alias(), null, null, List.of(), true));
                        } else {
                            tables.add(name);
                            scope.addSource(new QueryScope.Source(t.alias(), name, null, List.of(), false));
                        }
                    }
                    case "Function" -> {
                        tableFunctions.add(ObjectName.of(t.text().toLowerCase(Locale.ROOT)));
                        for (Node c : t.children()) expression(c, scope, visible);
                        scope.addSource(new QueryScope.Source(t.alias(), null, null, List.of(), true));
                    }
                    case "Subquery" -> {
                        expression(t, scope, visible);
                        scope.addSource(new QueryScope.Source(t.alias(), null, null, List.of(), true));
                    }
                    default -> expression(t, scope, visible); // SAMPLE ratios, FINAL has no node
                }
            }
        }

        private void expression(Node n, QueryScope scope, Set<String> visible) throws SqlRejection {
            if (!KNOWN.contains(n.kind())) throw unreadable("a " + n.kind() + " node, which this reader does not know");
            switch (n.kind()) {
                case "Subquery" -> {
                    for (Node c : n.children()) union(c, scope, visible);
                    return;
                }
                case "SelectWithUnionQuery", "SelectQuery", "SelectIntersectExceptQuery" -> {
                    union(n, scope, visible);
                    return;
                }
                case "TableIdentifier" -> {
                    ObjectName name = name(n.text());
                    if (!(name.size() == 1 && visible.contains(name.last()))) tables.add(name);
                    return;
                }
                case "TableExpression" -> {
                    from(n, scope, visible);
                    return;
                }
                case "Function" -> {
                    String f = n.text().toLowerCase(Locale.ROOT);
                    if (!PLAIN_NAME.matcher(f).matches() || f.contains(".")) throw unreadable("function name " + n.text());
                    if (!SYNTAX.contains(f)) functions.add(f);
                    if (IN_FAMILY.contains(f) && !n.children().isEmpty()) {
                        List<Node> args = n.children().getFirst().children();
                        if (args.size() == 2 && args.get(1).kind().equals("Identifier")) {
                            ObjectName name = name(args.get(1).text());
                            if (!(name.size() == 1 && visible.contains(name.last()))) tables.add(name);
                        }
                    }
                }
                default -> {
                    // identifiers, literals, clauses: only their children can call functions or read tables
                }
            }
            for (Node c : n.children()) expression(c, scope, visible);
        }

        private static Node expect(Node n, String kind) throws SqlRejection {
            if (!n.kind().equals(kind)) throw unreadable("a " + n.kind() + " where a " + kind + " stands");
            return n;
        }

        private static ObjectName name(String text) throws SqlRejection {
            // quoted names with dots or odd characters are refused in the text (ClickHouseNames): a dot here separates parts
            if (!PLAIN_NAME.matcher(text).matches()) throw unreadable("table name " + text);
            return new ObjectName(List.of(text.split("\\.")));
        }
    }
}
