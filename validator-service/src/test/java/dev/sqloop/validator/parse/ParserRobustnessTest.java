package dev.sqloop.parse;

import static org.junit.jupiter.api.Assertions.fail;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.message.NlConstraints;
import dev.sqloop.validator.SampleCatalog;
import dev.sqloop.parse.SqlCorpus;
import dev.sqloop.validator.StaticValidator;
import dev.sqloop.validator.ValidationTarget;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Truncated and spliced corpus queries must end in issues or a pass, never in a crash of a parser or a check. */
class ParserRobustnessTest {

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void shouldNeverCrashOnBrokenInput(Dialect dialect) {
        List<String> sqls = new ArrayList<>();
        SqlCorpus.load(SqlCorpus.LEGITIMATE).stream().filter(c -> c.dialect() == dialect).forEach(c -> sqls.add(c.sql()));
        SqlCorpus.load(SqlCorpus.EVASIONS).stream().filter(c -> c.dialect() == dialect).forEach(c -> sqls.add(c.sql()));
        ValidationTarget target = new ValidationTarget(dialect, SampleCatalog.create());
        List<String> crashes = new ArrayList<>();
        for (String sql : sqls) {
            for (int cut = 1; cut < sql.length(); cut += 6) {
                for (String variant : List.of(sql.substring(0, cut), sql.substring(cut), sql.substring(0, cut) + ")" + sql.substring(cut))) {
                    try {
                        StaticValidator.validate(variant, target, new NlConstraints("count", true, "desc", 3, true));
                    } catch (RuntimeException | StackOverflowError e) {
                        crashes.add(e + " <- " + variant);
                    }
                }
            }
        }
        if (!crashes.isEmpty()) fail(crashes.size() + " crashes, first: " + String.join("\n", crashes.subList(0, Math.min(5, crashes.size()))));
    }
}
