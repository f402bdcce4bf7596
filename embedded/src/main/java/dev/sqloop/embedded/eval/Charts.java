package dev.sqloop.embedded.eval;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Grouped horizontal bar charts as inline SVG, every one on the same fixed 0–100 % scale with a labelled axis and
 * grid lines: a bar's length is its share, never its size relative to the largest bar (85 % is drawn 85 % long).
 * No script, no external resource: readable in any browser or viewer.
 */
final class Charts {
    private static final String[] COLOURS = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2"};
    private static final int LABEL_WIDTH = 220;
    private static final int PLOT_WIDTH = 400;
    private static final int VALUE_MARGIN = 90;
    private static final int BAR = 14;
    private static final int TOP = 40;
    private static final int AXIS_SPACE = 44;

    /** One bar: a share in percent and what it is a share of ("7 of 35"), shown on hover. */
    record Bar(double percent, String detail) {
        static Bar of(long part, long whole) {
            return new Bar(whole == 0 ? 0 : 100.0 * part / whole, part + " of " + whole);
        }
    }

    private Charts() {}

    /** One group of bars per key of {@code groups}, one bar per series in it, on a 0–100 % axis titled {@code axis}. */
    static String bars(String title, String axis, List<String> series, Map<String, Bar[]> groups) {
        int group = series.size() * BAR + 10;
        int plotHeight = Math.max(1, groups.size()) * group;
        int height = TOP + plotHeight + AXIS_SPACE;
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "<h2>%s</h2>%n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"%s\" font-size=\"12\">%n",
                EvalReport.escape(title), LABEL_WIDTH + PLOT_WIDTH + VALUE_MARGIN, height, EvalReport.escape(title)));
        for (int s = 0; s < series.size(); s++) {
            b.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"8\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%d\" y=\"18\">%s</text>%n",
                    LABEL_WIDTH + s * 110, COLOURS[s % COLOURS.length], LABEL_WIDTH + s * 110 + 16, EvalReport.escape(series.get(s))));
        }
        // grid and axis first, so the bars are drawn over them
        int axisY = TOP + plotHeight;
        for (int tick = 0; tick <= 100; tick += 20) {
            int x = LABEL_WIDTH + PLOT_WIDTH * tick / 100;
            b.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\"/>"
                            + "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%d %%</text>%n",
                    x, TOP - 4, x, axisY + 4, tick == 0 ? "#333" : "#ddd", x, axisY + 17, tick));
        }
        b.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>%n",
                LABEL_WIDTH, axisY, LABEL_WIDTH + PLOT_WIDTH, axisY));
        b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
                LABEL_WIDTH + PLOT_WIDTH / 2, axisY + 36, EvalReport.escape(axis)));
        int y = TOP;
        if (groups.isEmpty()) b.append(String.format(Locale.ROOT, "<text x=\"0\" y=\"%d\">none</text>%n", y + 12));
        for (Map.Entry<String, Bar[]> e : groups.entrySet()) {
            b.append(String.format(Locale.ROOT, "<text x=\"0\" y=\"%d\">%s</text>%n", y + BAR, EvalReport.escape(e.getKey())));
            for (int s = 0; s < series.size(); s++) {
                Bar bar = s < e.getValue().length && e.getValue()[s] != null ? e.getValue()[s] : new Bar(0, "none");
                double v = Math.max(0, Math.min(100, bar.percent()));
                int w = (int) Math.round(v * PLOT_WIDTH / 100);
                int by = y + s * BAR;
                b.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"><title>%s, %s: %s %% (%s)</title></rect>"
                                + "<text x=\"%d\" y=\"%d\" font-size=\"11\">%s %%</text>%n", LABEL_WIDTH, by, w, BAR - 2,
                        COLOURS[s % COLOURS.length], EvalReport.escape(e.getKey()), EvalReport.escape(series.get(s)), number(v),
                        EvalReport.escape(bar.detail()), LABEL_WIDTH + w + 4, by + BAR - 3, number(v)));
            }
            y += group;
        }
        return b.append("</svg>\n").toString();
    }

    private static String number(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%.1f", v);
    }
}
