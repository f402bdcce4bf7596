package dev.sqloop.testkit.engines;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class SqlScriptTest {

    @Test
    void shouldSplitOnlyAtTopLevelSemicolons() {
        List<String> parts = SqlScript.split("""
                INSERT INTO t VALUES ('a;b', "c;d"); -- one; comment
                /* block; comment */ SELECT $$x;y$$;
                SELECT 'it''s;' ;;
                """);
        assertEquals(List.of("INSERT INTO t VALUES ('a;b', \"c;d\")", "SELECT $$x;y$$", "SELECT 'it''s;'"), parts);
    }
}
