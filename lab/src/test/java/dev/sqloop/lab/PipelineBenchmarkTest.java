package dev.sqloop.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;

class PipelineBenchmarkTest {

    @Test
    void shouldTakeNearestRankPercentiles() {
        long[] sorted = {10, 20, 30, 40, 50, 60, 70, 80, 90, 100};
        assertEquals(50, PipelineBenchmark.percentile(sorted, 50));
        assertEquals(100, PipelineBenchmark.percentile(sorted, 95));
        assertEquals(10, PipelineBenchmark.percentile(sorted, 1));
        assertEquals(0, PipelineBenchmark.percentile(new long[0], 50));
    }

    @Test
    void shouldCountEachQuestionIdOnceAcrossGrowth() {
        PipelineBenchmark.LongHashSet set = new PipelineBenchmark.LongHashSet(4);
        for (int i = 0; i < 10_000; i++) assertTrue(set.add(PipelineBenchmark.ResultCollector.hash("q-" + i)));
        for (int i = 0; i < 10_000; i++) assertFalse(set.add(PipelineBenchmark.ResultCollector.hash("q-" + i)), "duplicate " + i);
    }

    @Test
    void shouldChargeRunnerThreadsToTheirStage() {
        assertEquals("static-validate", CpuProfile.stageOf("sqloop-static-validate-17"));
        assertEquals("retrieve-examples", CpuProfile.stageOf("sqloop-retrieve-examples-consumer"));
        assertEquals("generate", CpuProfile.stageOf("sqloop-regenerate-consumer"), "the priority lane is the generate stage");
        assertEquals("generate", CpuProfile.stageOf("kafka-producer-network-thread | sqloop-generate-1a2b-producer"));
        assertEquals("capture", CpuProfile.stageOf("sqloop-capture-3"));
        assertNull(CpuProfile.stageOf("data-plane-kafka-request-handler-0"));
    }

    @Test
    void shouldDrawTimelinesAsWellFormedSvg() throws Exception {
        Map<String, double[]> series = new LinkedHashMap<>();
        series.put("used", new double[] {100, 300, 200});
        series.put("old gen after GC", new double[] {50, 60, 55});
        String svg = LineChart.svg("heap (MiB)", new double[] {1, 2, 3}, series);
        String xml = svg.substring(svg.indexOf("<svg"));
        DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
        assertEquals(2, xml.split("<polyline").length - 1, "one line per series");
        assertTrue(xml.contains("old gen after GC"));
    }
}
