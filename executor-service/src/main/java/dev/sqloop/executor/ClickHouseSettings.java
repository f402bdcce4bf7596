package dev.sqloop.executor;

import dev.sqloop.common.datasource.CostBudget;
import dev.sqloop.common.datasource.DatasourceConfig;
import dev.sqloop.common.datasource.Safeguards;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The ClickHouse settings every executor session of a datasource runs under, from the datasource's caps: the engine
 * itself refuses writes and stops a query at the time limit, the memory limit, the scan budget and the result bound.
 */
final class ClickHouseSettings {
    private ClickHouseSettings() {}

    /**
     * The caps, with {@code readonly} as given: 1 where the settings are fixed when the session opens (chDB's connect),
     * 2 where a client must pass them with each request (a server over HTTP), which lets a query change any setting but
     * {@code readonly} — there sqloop's checks refuse {@code SETTINGS} and {@code SET}, and a server-side profile with
     * constraints is the engine's part (README).
     */
    static Map<String, String> of(DatasourceConfig ds, int readonly) {
        Map<String, String> s = new LinkedHashMap<>();
        s.put("readonly", Integer.toString(readonly));
        // whole seconds as JDBC's timeout is; the engine stops the query itself ("Timeout exceeded", code 159)
        s.put("max_execution_time", Long.toString(EngineProfile.timeoutSeconds(ds)));
        s.put("timeout_overflow_mode", "throw");
        Safeguards g = ds.safeguards();
        s.put("max_memory_usage", Long.toString(Safeguards.bytes(g.memoryLimit())));
        s.put("max_threads", Integer.toString(g.threads()));
        CostBudget cost = g.cost();
        // the scan budget is enforced while the query reads, not estimated before: ClickHouse counts rows and bytes read
        if (cost.maxScanRows() != null) s.put("max_rows_to_read", Long.toString(cost.maxScanRows()));
        if (cost.maxScanBytes() != null) s.put("max_bytes_to_read", Long.toString(cost.maxScanBytes()));
        if (cost.maxScanRows() != null || cost.maxScanBytes() != null) s.put("read_overflow_mode", "throw");
        // the LIMIT wrapper already bounds the answer; this holds if a text ever reaches the engine unwrapped
        s.put("max_result_rows", Integer.toString(ds.rowLimit()));
        s.put("result_overflow_mode", "throw");
        return s;
    }
}
