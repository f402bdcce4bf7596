package dev.sqloop.lab;

import java.util.Locale;
import java.util.Map;

/** A line chart over time as inline SVG: the bench's timelines, viewable in any browser without a script. */
final class LineChart {
    private static final String[] COLOURS = {"#4e79a7", "#e15759", "#59a14f", "#f28e2b"};
    private static final int WIDTH = 720;
    private static final int HEIGHT = 240;
    private static final int LEFT = 60;
    private static final int BOTTOM = 30;

    private LineChart() {}

    /** One polyline per series over {@code x} (seconds), y from 0 to the largest value. */
    static String svg(String title, double[] x, Map<String, double[]> series) {
        double maxX = x.length == 0 ? 1 : Math.max(1e-9, x[x.length - 1]);
        double maxY = series.values().stream().flatMapToDouble(java.util.Arrays::stream).max().orElse(1);
        maxY = maxY <= 0 ? 1 : maxY * 1.05;
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "<h2>%s</h2>%n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"%s\">%n",
                title, WIDTH + LEFT + 20, HEIGHT + BOTTOM + 30, title));
        b.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>%n", LEFT, HEIGHT + 20, LEFT + WIDTH, HEIGHT + 20));
        b.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"20\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>%n", LEFT, LEFT, HEIGHT + 20));
        for (int i = 0; i <= 4; i++) {
            double v = maxY * i / 4;
            int y = HEIGHT + 20 - (int) Math.round(HEIGHT * i / 4.0);
            b.append(String.format(Locale.ROOT, "<text x=\"2\" y=\"%d\" font-size=\"11\">%.0f</text>%n", y + 4, v));
            double s = maxX * i / 4;
            int px = LEFT + (int) Math.round(WIDTH * i / 4.0);
            b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-size=\"11\">%.0f s</text>%n", px - 10, HEIGHT + 38, s));
        }
        int c = 0;
        for (Map.Entry<String, double[]> e : series.entrySet()) {
            String colour = COLOURS[c % COLOURS.length];
            StringBuilder points = new StringBuilder();
            double[] y = e.getValue();
            for (int i = 0; i < Math.min(x.length, y.length); i++) {
                points.append(String.format(Locale.ROOT, "%.1f,%.1f ", LEFT + WIDTH * x[i] / maxX, HEIGHT + 20 - HEIGHT * y[i] / maxY));
            }
            b.append(String.format(Locale.ROOT, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"%s\"/>%n", colour, points.toString().strip()));
            b.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"4\" width=\"10\" height=\"10\" fill=\"%s\"/><text x=\"%d\" y=\"13\" font-size=\"12\">%s</text>%n",
                    LEFT + c * 170, colour, LEFT + c * 170 + 14, e.getKey()));
            c++;
        }
        return b.append("</svg>\n").toString();
    }
}
