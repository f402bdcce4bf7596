package dev.sqloop.gateway;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Strict JSON and bounded reading, without a server. */
class HttpTest {
    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static ApiError refused(String json) {
        return assertThrows(ApiError.class, () -> Http.parseJson(utf8(json)));
    }

    @Test
    void shouldAcceptOneJsonValueWithWhitespaceAround() {
        assertEquals("q", Http.parseJson(utf8("  {\"question\":\"q\",\"n\":{\"a\":1,\"b\":2}}\n")).get("question").asText());
    }

    @Test
    void shouldRefuseTrailingTokensDuplicateKeysAndEmptyBodies() {
        for (String bad : new String[] {"{\"a\":1} {\"b\":2}", "{\"a\":1}]", "{\"a\":1} x", "{\"a\":1,\"a\":2}",
                "{\"m\":{\"k\":1,\"k\":2}}", "", "  \n", "{\"a\":"}) {
            ApiError e = refused(bad);
            assertEquals(400, e.status(), bad);
            assertEquals("invalid_request", e.body().error(), bad);
        }
    }

    /** The reason says what is wrong and where, in the caller's terms: not the parser's source and settings. */
    @Test
    void shouldSayWhatIsWrongWithTheJsonAndWhereWithoutTheParsersInternals() {
        for (String bad : new String[] {"{\"question\": \"q\"", "{\"question\": q}", "{\"a\":1,\"a\":2}", "[1,\n 2,,]"}) {
            String message = String.valueOf(refused(bad).body().message());
            assertTrue(message.startsWith("invalid JSON: "), message);
            assertTrue(message.matches("(?s).*\\(line \\d+, column \\d+\\)$"), message);
            for (String internal : new String[] {"Source", "REDACTED", "StreamReadFeature", "start marker"}) {
                assertFalse(message.contains(internal), message);
            }
        }
        String twoLines = String.valueOf(refused("[1,\n 2,,]").body().message());
        assertTrue(twoLines.endsWith("(line 2, column 4)"), twoLines); // the second comma
    }

    @Test
    void shouldRefuseInvalidUtf8EvenInsideStrings() {
        byte[][] bad = {
                {'{', '"', 'q', '"', ':', '"', (byte) 0xff, '"', '}'},               // not a UTF-8 byte
                {'{', '"', 'q', '"', ':', '"', (byte) 0xc3, '"', '}'},               // truncated sequence
                {'{', '"', 'q', '"', ':', '"', (byte) 0xc0, (byte) 0xaf, '"', '}'},  // overlong '/'
                {'{', '"', 'q', '"', ':', '"', (byte) 0xed, (byte) 0xa0, (byte) 0x80, '"', '}'}}; // a lone surrogate
        for (byte[] b : bad) {
            ApiError e = assertThrows(ApiError.class, () -> Http.parseJson(b));
            assertEquals(400, e.status());
        }
        assertEquals("café", Http.parseJson(utf8("{\"q\":\"café\"}")).get("q").asText());
    }

    @Test
    void shouldCountBytesWhileReadingAndRefuseTheFirstOneOverTheLimit() throws Exception {
        InputStream in = new Http.LimitedInputStream(new ByteArrayInputStream(new byte[1000]), 999, "the body");
        ApiError e = assertThrows(ApiError.class, in::readAllBytes);
        assertEquals(413, e.status());
        assertEquals("too_large", e.body().error());
        assertEquals(1000, new Http.LimitedInputStream(new ByteArrayInputStream(new byte[1000]), 1000, "the body").readAllBytes().length);
    }

    @Test
    void shouldReadLinesWithAByteBoundAndTheLineNumber() throws Exception {
        InputStream in = new ByteArrayInputStream(utf8("ab\r\n\ncd"));
        assertArrayEquals(utf8("ab"), Http.readLine(in, 4, 1));
        assertArrayEquals(new byte[0], Http.readLine(in, 4, 2));
        assertArrayEquals(utf8("cd"), Http.readLine(in, 4, 3));
        assertNull(Http.readLine(in, 4, 4));

        ApiError e = assertThrows(ApiError.class, () -> Http.readLine(new ByteArrayInputStream(utf8("12345\n")), 4, 7));
        assertEquals(413, e.status());
        assertEquals(7, e.line());
        assertArrayEquals(utf8("1234"), Http.readLine(new ByteArrayInputStream(utf8("1234\r\n")), 4, 1));
    }
}
