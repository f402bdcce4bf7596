package dev.sqloop.chdb;

import com.sun.jna.Library;
import com.sun.jna.NativeLong;
import com.sun.jna.Pointer;

/**
 * The part of chDB's C API ({@code chdb.h}, stable ABI of chDB 3.x / 26.x) sqloop calls. {@code chdb_connect} returns a
 * {@code chdb_connection *}: the other calls take the {@code chdb_connection} it points to.
 */
interface ChdbNative extends Library {
    /** {@code chdb_connection * chdb_connect(int argc, char ** argv)}; null on failure (the reason goes to chDB's log). */
    Pointer chdb_connect(int argc, String[] argv);

    /** {@code void chdb_close_conn(chdb_connection * conn)}: closing the last connection shuts the engine down. */
    void chdb_close_conn(Pointer connection);

    /** {@code chdb_result * chdb_query(chdb_connection conn, const char * query, const char * format)}. */
    Pointer chdb_query(Pointer connection, String query, String format);

    /** {@code char * chdb_result_buffer(chdb_result *)}: the formatted output, not NUL-terminated. */
    Pointer chdb_result_buffer(Pointer result);

    /** {@code size_t chdb_result_length(chdb_result *)}. */
    NativeLong chdb_result_length(Pointer result);

    /** {@code const char * chdb_result_error(chdb_result *)}: null when the query succeeded. */
    String chdb_result_error(Pointer result);

    /** {@code uint64_t chdb_result_rows_read(chdb_result *)}. */
    long chdb_result_rows_read(Pointer result);

    /** {@code void chdb_destroy_query_result(chdb_result *)}. */
    void chdb_destroy_query_result(Pointer result);

    /**
     * {@code void chdb_set_signal_handlers_enabled(int enabled)}: 0 before the first connection keeps chDB from installing
     * its crash handlers over the process's ({@link HostSignals}).
     */
    void chdb_set_signal_handlers_enabled(int enabled);

    /** {@code const char * chdb_version(void)}. */
    String chdb_version();
}
