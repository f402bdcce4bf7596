package dev.sqloop.validator;

import dev.sqloop.common.Dialect;
import dev.sqloop.validator.schema.SchemaCatalog;
import java.util.Objects;

/** What static validation needs to know about one datasource: its SQL dialect and its schema catalog. */
public record ValidationTarget(Dialect dialect, SchemaCatalog catalog) {
    public ValidationTarget {
        Objects.requireNonNull(dialect, "dialect");
        Objects.requireNonNull(catalog, "catalog");
    }
}
