package dev.sqloop.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.gateway.MethodOverrideRefusal.FormKind;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What counts as a method-override signal, without a server (GatewayIT sends each to the running gateway). */
class MethodOverrideRefusalTest {
    private static final String BOUNDARY = "b0undary";

    private static byte[] multipart(String... names) {
        StringBuilder s = new StringBuilder();
        for (String name : names) {
            s.append("--").append(BOUNDARY).append("\r\nContent-Disposition: form-data; name=\"").append(name)
                    .append("\"\r\n\r\nDELETE\r\n");
        }
        return s.append("--").append(BOUNDARY).append("--\r\n").toString().getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void shouldFindEachOverrideHeaderInAnyCase() {
        assertEquals(Optional.of("X-HTTP-Method-Override"), MethodOverrideRefusal.overrideHeader(List.of("Host", "x-http-method-override")));
        assertEquals(Optional.of("X-HTTP-Method"), MethodOverrideRefusal.overrideHeader(List.of("X-HTTP-METHOD")));
        assertEquals(Optional.of("X-Method-Override"), MethodOverrideRefusal.overrideHeader(List.of("x-method-override")));
        assertEquals(Optional.empty(), MethodOverrideRefusal.overrideHeader(List.of("Host", "X-API-Key", "X-HTTP-Methods", "Method")));
    }

    @Test
    void shouldFindMethodInTheQueryHoweverItIsSpelt() {
        for (String q : List.of("_method=DELETE", "a=1&_method=POST", "_METHOD=delete", "%5Fmethod=DELETE", "_method", "_method=", "x=1&_method")) {
            assertTrue(MethodOverrideRefusal.inQuery(q), q);
        }
        for (String q : List.of("method=DELETE", "limit=5&cursor=x", "q=_method", "__method=x", "")) {
            assertFalse(MethodOverrideRefusal.inQuery(q), q);
        }
        assertFalse(MethodOverrideRefusal.inQuery(null));
    }

    @Test
    void shouldRefuseAQueryItCannotDecode() {
        ApiError e = assertThrows(ApiError.class, () -> MethodOverrideRefusal.inQuery("_meth%zzod=DELETE"));
        assertEquals(400, e.status());
    }

    @Test
    void shouldFindMethodInUrlEncodedAndMultipartForms() {
        String multipartType = "multipart/form-data; boundary=" + BOUNDARY;
        assertEquals(FormKind.URL_ENCODED, FormKind.of("application/x-www-form-urlencoded; charset=UTF-8"));
        assertEquals(FormKind.MULTIPART, FormKind.of(multipartType));
        assertEquals(FormKind.NONE, FormKind.of("application/json"));
        assertEquals(FormKind.NONE, FormKind.of(null));

        assertTrue(MethodOverrideRefusal.inForm(FormKind.URL_ENCODED, "application/x-www-form-urlencoded", "a=1&_method=DELETE".getBytes(StandardCharsets.UTF_8)));
        assertTrue(MethodOverrideRefusal.inForm(FormKind.URL_ENCODED, "application/x-www-form-urlencoded", "%5fMethod=DELETE".getBytes(StandardCharsets.UTF_8)));
        assertFalse(MethodOverrideRefusal.inForm(FormKind.URL_ENCODED, "application/x-www-form-urlencoded", "question=_method".getBytes(StandardCharsets.UTF_8)));
        assertFalse(MethodOverrideRefusal.inForm(FormKind.URL_ENCODED, "application/x-www-form-urlencoded", new byte[0]));

        assertTrue(MethodOverrideRefusal.inForm(FormKind.MULTIPART, multipartType, multipart("question", "_method")));
        assertFalse(MethodOverrideRefusal.inForm(FormKind.MULTIPART, multipartType, multipart("question", "method")));
        ApiError broken = assertThrows(ApiError.class, () -> MethodOverrideRefusal.inForm(FormKind.MULTIPART, multipartType,
                "--b0undary\r\nContent-Disposition: form-data; name=\"_method\"\r\n\r\nDEL".getBytes(StandardCharsets.UTF_8)));
        assertEquals(400, broken.status(), "a form that cannot be read is refused, not passed on unread");
    }
}
