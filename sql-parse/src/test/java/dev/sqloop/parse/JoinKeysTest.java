package dev.sqloop.parse;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sqloop.common.Dialect;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The column equalities of a join's ON, as both parsers record them (what an empty answer's finding reads). */
class JoinKeysTest {
    @ParameterizedTest
    @EnumSource(Dialect.class)
    void shouldRecordTheColumnEqualitiesOfEachJoinOn(Dialect dialect) throws SqlRejection {
        ParsedQuery q = DialectParsers.forDialect(dialect).parse("SELECT c.name FROM customer c JOIN orders o"
                + " ON (c.id = o.customer_id AND o.status = 'x') LEFT JOIN region r ON r.code = c.region_code WHERE c.id = 3");
        List<String> keys = q.scopes().stream().flatMap(s -> s.joinKeys().stream())
                .map(k -> k.left().text() + "=" + k.right().text()).toList();
        assertEquals(List.of("c.id=o.customer_id", "r.code=c.region_code"), keys);
    }
}
