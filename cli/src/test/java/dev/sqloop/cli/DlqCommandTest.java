package dev.sqloop.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.SqloopHeaders;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.junit.jupiter.api.Test;

/** The dlq command's pure parts: filters, ids, formatting, argument handling (no broker). */
class DlqCommandTest {
    private static final Instant NOW = Instant.parse("2026-11-23T12:00:00Z");

    private static DeadLetter letter(long offset, Instant at, String stage, String reason, String topic, Map<String, String> extra) {
        Map<String, String> h = new LinkedHashMap<>();
        h.put(SqloopHeaders.ATTEMPT, "2");
        h.put(SqloopHeaders.QUESTION_ID, "q-" + offset);
        h.putAll(extra);
        h.put(SqloopHeaders.ERROR_TOPIC, topic);
        h.put(SqloopHeaders.ERROR_PARTITION, "3");
        h.put(SqloopHeaders.ERROR_OFFSET, Long.toString(1000 + offset));
        h.put(SqloopHeaders.ERROR_STAGE, stage);
        h.put(SqloopHeaders.ERROR_REASON, reason);
        h.put(SqloopHeaders.ERROR_CLASS, "java.lang.IllegalStateException");
        h.put(SqloopHeaders.ERROR_MESSAGE, "boom\n  at line 2");
        List<Header> headers = new ArrayList<>();
        h.forEach((k, v) -> headers.add(new RecordHeader(k, v.getBytes(StandardCharsets.UTF_8))));
        return new DeadLetter(0, offset, at, ("q-" + offset).getBytes(StandardCharsets.UTF_8),
                "{\"id\":1}".getBytes(StandardCharsets.UTF_8), headers);
    }

    private static DeadLetter letter(long offset, String stage, String reason, String topic) {
        return letter(offset, NOW.minusSeconds(3600 - offset), stage, reason, topic, Map.of());
    }

    private static DeadLetterFilter filter(String... argv) {
        return picocli.CommandLine.populateCommand(new DeadLetterFilter.Options(), argv).filter(NOW);
    }

    @Test
    void shouldSelectByStageReasonTopicSinceAndOffsetTogether() {
        List<DeadLetter> all = List.of(
                letter(0, "executor", "processing_failed", "execute"),
                letter(1, "executor", "undecodable", "execute"),
                letter(2, "validator", "processing_failed", "static-validate"),
                letter(3, "executor", "processing_failed", "execute"),
                letter(4, "executor", "retries_exhausted", "execute"));
        assertEquals(all, DeadLetterFilter.ANY.select(all));
        assertEquals(List.of(0L, 1L, 3L, 4L), offsets(filter("--stage", "executor").select(all)));
        assertEquals(List.of(0L, 2L, 3L), offsets(filter("--reason", "processing_failed").select(all)));
        assertEquals(List.of(2L), offsets(filter("--topic", "static-validate").select(all)));
        assertEquals(List.of(0L, 3L), offsets(filter("--stage", "executor", "--reason", "processing_failed").select(all)));
        assertEquals(List.of(1L, 4L), offsets(filter("--offset", "1", "--offset", "4").select(all)));
        assertEquals(List.of(4L), offsets(filter("--offset", "1", "--offset", "4", "--reason", "retries_exhausted").select(all)));
    }

    @Test
    void shouldTakeSinceAsAnInstantOrATimeAgo() {
        DeadLetter old = letter(0, NOW.minusSeconds(3 * 3600), "executor", "undecodable", "execute", Map.of());
        DeadLetter recent = letter(1, NOW.minusSeconds(600), "executor", "undecodable", "execute", Map.of());
        assertEquals(List.of(recent), filter("--since", "2h").select(List.of(old, recent)));
        assertEquals(List.of(old, recent), filter("--since", "1d").select(List.of(old, recent)));
        assertEquals(List.of(), filter("--since", "90s").select(List.of(old, recent)));
        assertEquals(List.of(recent), filter("--since", "2026-11-23T11:00:00Z").select(List.of(old, recent)));
        assertEquals(NOW.minusSeconds(1800), DeadLetterFilter.parseSince("30m", NOW));
        Args.UsageException e = assertThrows(Args.UsageException.class, () -> filter("--since", "yesterday"));
        assertTrue(e.getMessage().contains("--since"), e.getMessage());
    }

    @Test
    void shouldRefuseAnUnknownReasonByNameAndABadOffset() {
        Args.UsageException reason = assertThrows(Args.UsageException.class, () -> filter("--reason", "crashed"));
        assertTrue(reason.getMessage().contains("processing_failed") && reason.getMessage().contains("crashed"), reason.getMessage());
        assertThrows(Args.UsageException.class, () -> filter("--offset", "x1"));
        assertEquals("17", DeadLetterFilter.parseId("0:17"));
        assertEquals("2:17", DeadLetterFilter.parseId("2:17"));
        assertEquals("17", DeadLetterFilter.parseId("017"));
    }

    @Test
    void shouldKeepTheOriginalHeadersWithoutTheErrorOnesAndTheAttemptUnchanged() {
        DeadLetter d = letter(5, "executor", "processing_failed", "execute");
        List<String> names = d.originalHeaders().stream().map(Header::key).toList();
        assertEquals(List.of(SqloopHeaders.ATTEMPT, SqloopHeaders.QUESTION_ID), names);
        assertEquals("2", new String(d.originalHeaders().getFirst().value(), StandardCharsets.UTF_8));
        assertEquals("execute-3@1005", d.origin());
        assertEquals("q-5", d.questionId());
        DeadLetter bare = new DeadLetter(1, 9, NOW, null, null, List.of());
        assertEquals("?-?@?", bare.origin());
        assertEquals("1:9", bare.id());
        assertEquals("no sqloop.error.topic header: where it came from is unknown", DlqCommand.skipReason(bare, null, Set.of("execute")));
    }

    @Test
    void shouldSkipWhatWasReplayedOrHasNowhereToGo() {
        DeadLetter d = letter(5, "executor", "processing_failed", "execute");
        assertNull(DlqCommand.skipReason(d, null, Set.of("execute")));
        assertEquals("topic execute does not exist", DlqCommand.skipReason(d, null, Set.of("generate")));
        String replayed = DlqCommand.skipReason(d, new DlqCommand.ReplayMark("5", "execute-3@1005", "execute", "q-5", NOW), Set.of("execute"));
        assertTrue(replayed.startsWith("already replayed at 2026-11-23T12:00:00Z"), replayed);
    }

    @Test
    void shouldNotTakeAMarkLeftByAnEarlierDlqWithTheSameOffsetsForAReplay() {
        DeadLetter d = letter(5, "executor", "processing_failed", "execute");
        DlqCommand.ReplayMark same = new DlqCommand.ReplayMark("5", "execute-3@1005", "execute", "q-5", NOW);
        DlqCommand.ReplayMark earlierDlq = new DlqCommand.ReplayMark("5", "generate-0@12", "generate", "q-0", NOW);
        DlqCommand.ReplayMark unreadable = new DlqCommand.ReplayMark("5", null, "?", null, NOW);
        assertEquals(same, DlqCommand.markOf(d, Map.of("5", same)));
        assertNull(DlqCommand.markOf(d, Map.of("5", earlierDlq)));
        assertEquals(unreadable, DlqCommand.markOf(d, Map.of("5", unreadable)), "an unreadable mark still means replayed");
        assertNull(DlqCommand.markOf(d, Map.of("6", same)));
    }

    @Test
    void shouldPrintOneLinePerDeadLetterWithTheExceptionOnOneShortenedLine() {
        DeadLetter d = letter(7, NOW, "executor", "processing_failed", "execute", Map.of());
        String line = DlqCommand.line(d, null);
        assertFalse(line.contains("\n"));
        for (String part : List.of("7", "2026-11-23T12:00:00Z", "executor", "processing_failed", "execute-3@1007", "q-7", "no",
                "IllegalStateException: boom at line 2")) {
            assertTrue(line.contains(part), part + " in " + line);
        }
        assertTrue(DlqCommand.line(d, new DlqCommand.ReplayMark("7", "execute-3@1007", "execute", "q-7", NOW)).contains(" yes "));
        String longMessage = "x".repeat(500);
        DeadLetter verbose = letter(8, NOW, "executor", "processing_failed", "execute", Map.of());
        verbose = withHeader(verbose, SqloopHeaders.ERROR_MESSAGE, longMessage);
        String shortened = DlqCommand.line(verbose, null);
        assertTrue(shortened.endsWith("…") && !shortened.contains(longMessage), shortened);
    }

    @Test
    void shouldShowEveryHeaderButCutLongHeadersAndLargeValues() {
        DeadLetter d = withHeader(letter(3, "executor", "processing_failed", "execute"), "sqloop-previous-sql", "S".repeat(5000));
        d = new DeadLetter(d.partition(), d.offset(), d.timestamp(), d.key(), "v".repeat(50_000).getBytes(StandardCharsets.UTF_8), d.headers());
        String text = DlqCommand.details(d, null);
        for (String name : List.of(SqloopHeaders.ATTEMPT, SqloopHeaders.QUESTION_ID, SqloopHeaders.ERROR_TOPIC, SqloopHeaders.ERROR_MESSAGE)) {
            assertTrue(text.contains(name + ": "), name);
        }
        assertTrue(text.contains("S".repeat(2000) + "… (3000 more characters not shown)"), "header cut at 2,000");
        assertFalse(text.contains("S".repeat(2001)));
        assertTrue(text.contains("value (50000 bytes)") && text.contains("v".repeat(10_000) + "… (40000 more characters not shown)"));
        assertFalse(text.contains("v".repeat(10_001)));
        assertTrue(text.contains("key\n  q-3"));
    }

    @Test
    void shouldPrintUsageForHelpAndRefuseUnknownOptionsByName() throws Exception {
        for (List<String> help : List.of(List.of("--help"), List.of("list", "--help"), List.of("show", "--help"), List.of("replay", "--help"))) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            assertEquals(0, DlqCommand.run(help, Map.of(), new PrintStream(out, true, StandardCharsets.UTF_8), System.err), help.toString());
            String sub = help.size() > 1 ? " " + help.getFirst() : "";
            assertTrue(out.toString(StandardCharsets.UTF_8).contains("usage: ./sqloop dlq" + sub), out.toString(StandardCharsets.UTF_8));
        }
        ByteArrayOutputStream bare = new ByteArrayOutputStream();
        assertEquals(2, DlqCommand.run(List.of(), Map.of(), new PrintStream(bare, true, StandardCharsets.UTF_8), System.err));
        assertTrue(bare.toString(StandardCharsets.UTF_8).contains("list") && bare.toString(StandardCharsets.UTF_8).contains("replay"));
        Args.UsageException unknown = assertThrows(Args.UsageException.class,
                () -> DlqCommand.run(List.of("list", "--stag", "executor"), Map.of(), System.out, System.err));
        assertTrue(unknown.getMessage().contains("'--stag'"), unknown.getMessage());
        assertThrows(Args.UsageException.class, () -> DlqCommand.run(List.of("show"), Map.of(), System.out, System.err));
        assertThrows(Args.UsageException.class, () -> DlqCommand.run(List.of("purge"), Map.of(), System.out, System.err));
        Args.UsageException noKafka = assertThrows(Args.UsageException.class,
                () -> DlqCommand.run(List.of("list"), Map.of(), System.out, System.err));
        assertTrue(noKafka.getMessage().contains("SQLOOP_BOOTSTRAP_SERVERS"), noKafka.getMessage());
        assertThrows(Args.UsageException.class, () -> DlqCommand.run(List.of("list", "--limit", "0"), Map.of(), System.out, System.err));
    }

    /** --reason's help names every reason the reporter writes: the list is kept in one place. */
    @Test
    void shouldNameEveryDeadLetterReasonInTheHelp() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        DlqCommand.run(List.of("list", "--help"), Map.of(), new PrintStream(out, true, StandardCharsets.UTF_8), System.err);
        String help = out.toString(StandardCharsets.UTF_8).replaceAll("\\s+", " ");
        for (String reason : dev.sqloop.common.runtime.DeadLetterReporter.REASONS) assertTrue(help.contains(reason), reason + " in " + help);
    }

    @Test
    void shouldFailNamingTheBootstrapServersWhenNoBrokerAnswers() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = DlqCommand.run(List.of("list", "--timeout", "2s"), Map.of("SQLOOP_BOOTSTRAP_SERVERS", "127.0.0.1:1"),
                new PrintStream(new ByteArrayOutputStream()), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(1, code);
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("cannot reach the Kafka brokers at 127.0.0.1:1"), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void shouldKeepEveryValueOfARepeatedOption() {
        DeadLetterFilter.Options options = picocli.CommandLine.populateCommand(new DeadLetterFilter.Options(), "--offset", "3", "--offset=5");
        assertEquals(List.of("3", "5"), options.offsets);
        assertEquals(java.util.Set.of("3", "5"), options.filter(NOW).ids());
        assertEquals(null, options.filter(NOW).stage());
    }

    private static DeadLetter withHeader(DeadLetter d, String name, String value) {
        List<Header> headers = new ArrayList<>(d.headers().stream().filter(h -> !h.key().equals(name)).toList());
        headers.add(new RecordHeader(name, value.getBytes(StandardCharsets.UTF_8)));
        return new DeadLetter(d.partition(), d.offset(), d.timestamp(), d.key(), d.value(), headers);
    }

    private static List<Long> offsets(List<DeadLetter> letters) {
        return letters.stream().map(DeadLetter::offset).toList();
    }
}
