package dev.sqloop.chdb;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.jna.Pointer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One chDB connection with its settings fixed at connect time. Queries run one at a time (callers that need more open
 * more sessions). The answer is read as {@code JSONCompact}.
 */
public final class ChdbSession implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final Chdb engine;
    private final Map<String, String> settings;
    private final String database;
    private Pointer connection;

    ChdbSession(Chdb engine, Pointer connection, Map<String, String> settings, String database) {
        this.engine = engine;
        this.connection = connection;
        this.settings = Map.copyOf(settings);
        if (database != null && !database.matches("[A-Za-z_][A-Za-z0-9_]*")) {
            throw new IllegalArgumentException("database must be a plain name, was '" + database + "'");
        }
        this.database = database;
    }

    /** Makes the session's database current (a plain name, checked at construction). */
    synchronized void use() throws ChdbException {
        if (database != null) query("USE " + database);
    }

    /** The settings this session was opened with. */
    public Map<String, String> settings() {
        return settings;
    }

    /**
     * Runs one statement and returns its rows.
     *
     * @throws ChdbException the engine's error, with ClickHouse's code and name
     */
    public synchronized ChdbResult query(String sql) throws ChdbException {
        if (connection == null) throw new IllegalStateException("chDB session closed");
        ChdbNative lib = engine.lib();
        Pointer result = lib.chdb_query(connection.getPointer(0), sql, "JSONCompact");
        if (result == null) throw new IllegalStateException("chDB returned no result for a query");
        String error;
        byte[] out;
        long rowsRead;
        try {
            error = lib.chdb_result_error(result);
            long length = error == null ? lib.chdb_result_length(result).longValue() : 0;
            Pointer buffer = length == 0 ? null : lib.chdb_result_buffer(result);
            out = buffer == null ? new byte[0] : buffer.getByteArray(0, Math.toIntExact(length));
            rowsRead = lib.chdb_result_rows_read(result);
        } finally {
            lib.chdb_destroy_query_result(result);
        }
        if (error != null) {
            // a query that failed while running leaves the output it had begun (JSON's header) in the connection, and
            // chDB puts it before the next query's answer (seen with 26.7): the connection is replaced, not reused
            renew();
            throw ChdbException.of(error);
        }
        return parse(out, rowsRead);
    }

    /** Runs a statement whose answer is not read (DDL, INSERT). */
    public void execute(String sql) throws ChdbException {
        query(sql);
    }

    private boolean renewing;

    private void renew() {
        if (renewing) return; // the USE of a fresh connection failed: no second renewal from inside the first
        renewing = true;
        try {
            replace();
        } finally {
            renewing = false;
        }
    }

    private void replace() {
        Pointer fresh = engine.reconnect(settings);
        if (fresh == null) return;
        Pointer old = connection;
        connection = fresh;
        engine.lib().chdb_close_conn(old);
        try {
            use();
        } catch (ChdbException e) {
            // the database went away: the next query says so itself
        }
    }

    static ChdbResult parse(byte[] out, long rowsRead) {
        if (out.length == 0) return new ChdbResult(List.of(), List.of(), List.of(), rowsRead);
        JsonNode doc;
        try {
            doc = JSON.readTree(new String(out, StandardCharsets.UTF_8));
        } catch (java.io.IOException e) {
            throw new IllegalStateException("chDB answered with text that is not JSONCompact: " + e.getMessage(), e);
        }
        List<String> columns = new ArrayList<>();
        List<String> types = new ArrayList<>();
        for (JsonNode m : doc.path("meta")) {
            columns.add(m.path("name").asText());
            types.add(m.path("type").asText());
        }
        List<List<Object>> rows = new ArrayList<>();
        for (JsonNode r : doc.path("data")) {
            List<Object> row = new ArrayList<>(r.size());
            for (JsonNode v : r) row.add(value(v));
            rows.add(java.util.Collections.unmodifiableList(row));
        }
        return new ChdbResult(columns, types, rows, rowsRead);
    }

    /** A JSON value as a plain Java value; ClickHouse's 64-bit integers arrive as strings unless the session says otherwise. */
    static Object value(JsonNode v) {
        if (v == null || v.isNull()) return null;
        if (v.isIntegralNumber()) return v.canConvertToLong() ? (Object) v.longValue() : v.bigIntegerValue();
        if (v.isBigDecimal()) return v.decimalValue();
        if (v.isNumber()) return v.doubleValue();
        if (v.isBoolean()) return v.booleanValue();
        if (v.isArray()) {
            List<Object> list = new ArrayList<>(v.size());
            for (JsonNode e : v) list.add(value(e));
            return java.util.Collections.unmodifiableList(list);
        }
        if (v.isObject()) {
            Map<String, Object> map = new LinkedHashMap<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = v.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                map.put(e.getKey(), value(e.getValue()));
            }
            return java.util.Collections.unmodifiableMap(map);
        }
        return v.asText();
    }

    @Override
    public synchronized void close() {
        if (connection == null) return;
        engine.lib().chdb_close_conn(connection);
        connection = null;
    }
}
