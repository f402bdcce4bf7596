package dev.sqloop.cli;

import java.io.PrintStream;
import java.util.Locale;

/** A one-line terminal progress bar: {@code [#########---------]  523/1000  52% | succeeded 480 failed 43}. */
public final class ProgressBar {
    private static final int WIDTH = 30;
    private final PrintStream out;
    private final boolean interactive;
    private long lastPrinted = -1;

    public ProgressBar(PrintStream out) {
        this.out = out;
        // redrawn in place only on a terminal: in a file or a CI log, \r redraws would pile up on one line
        this.interactive = Terminal.err() || "true".equals(System.getenv("SQLOOP_FORCE_PROGRESS"));
    }

    public void update(long done, long total, String detail) {
        if (!interactive && done == lastPrinted) return;
        double fraction = total == 0 ? 1 : Math.min(1.0, (double) done / total);
        int filled = (int) Math.round(fraction * WIDTH);
        String line = String.format(Locale.ROOT, "[%s%s] %6d/%-6d %3.0f%% | %s", "#".repeat(filled), "-".repeat(WIDTH - filled),
                done, total, fraction * 100, detail);
        if (interactive) {
            out.print("\r" + line + "   ");
        } else if (done == total || lastPrinted < 0 || done - lastPrinted >= Math.max(1, total / 10)) {
            out.println(line); // not a terminal: print a line per 10 % instead of redrawing
        } else {
            return;
        }
        out.flush();
        lastPrinted = done;
    }

    public void finish() {
        if (interactive) out.println();
    }
}
