package dev.sqloop.embedded.eval;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Grouped horizontal bar charts as inline SVG: no script, no external resource, readable in any browser or viewer. */
final class Charts {
    private static final String[] COLOURS = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2"};
    private static final int LABEL_WIDTH = 220;
    private static final int PLOT_WIDTH = 420;
    private static final int BAR = 14;

    private Charts() {}

    /** One group of bars per key of {@code values}, one bar per series in it. */
    static String bars(String title, List<String> series, Map<String, double[]> values, String unit) {
        double max = values.values().stream().flatMapToDouble(java.util.Arrays::stream).max().orElse(0);
        double scale = max <= 0 ? 0 : PLOT_WIDTH / max;
        int group = series.size() * BAR + 10;
        int height = 40 + Math.max(1, values.size()) * group + 20;
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "<h2>%s</h2>%n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"%s\">%n",
                EvalReport.escape(title), LABEL_WIDTH + PLOT_WIDTH + 80, height, EvalReport.escape(title)));
        for (int s = 0; s < series.size(); s++) {
            b.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"8\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%d\" y=\"18\">%s</text>%n",
                    LABEL_WIDTH + s * 110, COLOURS[s % COLOURS.length], LABEL_WIDTH + s * 110 + 16, EvalReport.escape(series.get(s))));
        }
        int y = 40;
        if (values.isEmpty()) b.append(String.format(Locale.ROOT, "<text x=\"0\" y=\"%d\">none</text>%n", y + 12));
        for (Map.Entry<String, double[]> e : values.entrySet()) {
            b.append(String.format(Locale.ROOT, "<text x=\"0\" y=\"%d\">%s</text>%n", y + BAR, EvalReport.escape(e.getKey())));
            for (int s = 0; s < series.size(); s++) {
                double v = s < e.getValue().length ? e.getValue()[s] : 0;
                int w = (int) Math.round(v * scale);
                int by = y + s * BAR;
                b.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"><title>%s %s: %s %s</title></rect>"
                                + "<text x=\"%d\" y=\"%d\" font-size=\"11\">%s</text>%n", LABEL_WIDTH, by, w, BAR - 2,
                        COLOURS[s % COLOURS.length], EvalReport.escape(e.getKey()), EvalReport.escape(series.get(s)), number(v), unit,
                        LABEL_WIDTH + w + 4, by + BAR - 3, number(v)));
            }
            y += group;
        }
        return b.append("</svg>\n").toString();
    }

    private static String number(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%.1f", v);
    }
}
