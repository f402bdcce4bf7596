package dev.sqloop.generator;

import dev.sqloop.common.Dialect;
import dev.sqloop.common.message.Issue;
import dev.sqloop.store.ErrorFixMemory;
import java.util.List;

/** {@link PastFixes} from the few-shot memory: error→fix pairs of the datasource whose error text resembles this one. */
public final class MemoryPastFixes implements PastFixes {
    private final ErrorFixMemory memory;

    public MemoryPastFixes(ErrorFixMemory memory) {
        this.memory = memory;
    }

    @Override
    public List<PastFix> similar(String datasource, Dialect dialect, Issue issue) {
        return memory.similar(datasource, issue.message()).stream()
                .limit(MAX)
                .map(s -> new PastFix(s.value().errorText(), s.value().failedSql(), s.value().fixedSql()))
                .toList();
    }
}
