package dev.sqloop.validator;

import dev.sqloop.common.Dialect;
import dev.sqloop.parse.DialectParser;
import dev.sqloop.validator.schema.SchemaCatalog;
import java.util.Objects;
import java.util.Set;

/**
 * What static validation needs to know about one datasource: its SQL dialect, its schema catalog, the functions it
 * adds to the dialect's allow-list (its user-defined functions, {@code SQLOOP_DATASOURCE_<NAME>_FUNCTIONS}), and the
 * engine's own parser for what the dialect's Java parser cannot read (ClickHouse's {@code EXPLAIN AST}; null: none).
 */
public record ValidationTarget(Dialect dialect, SchemaCatalog catalog, Set<String> extraFunctions, DialectParser engineParser) {
    public ValidationTarget {
        Objects.requireNonNull(dialect, "dialect");
        Objects.requireNonNull(catalog, "catalog");
        extraFunctions = extraFunctions == null ? Set.of() : Set.copyOf(extraFunctions);
    }

    public ValidationTarget(Dialect dialect, SchemaCatalog catalog, Set<String> extraFunctions) {
        this(dialect, catalog, extraFunctions, null);
    }

    public ValidationTarget(Dialect dialect, SchemaCatalog catalog) {
        this(dialect, catalog, Set.of());
    }
}
