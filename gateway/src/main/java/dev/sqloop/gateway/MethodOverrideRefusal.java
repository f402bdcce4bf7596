package dev.sqloop.gateway;

import dev.sqloop.common.JsonCodec;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.MultipartConfigElement;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.Part;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.eclipse.jetty.server.MultiPartFormInputStream;
import org.eclipse.jetty.util.MultiMap;
import org.eclipse.jetty.util.UrlEncoded;

/**
 * Refuses (400, the JSON error body naming the signal as {@code field}) every request that asks for another method than
 * its own: the {@code X-HTTP-Method-Override}, {@code X-HTTP-Method} and {@code X-Method-Override} headers, and a
 * {@code _method} parameter in the query string or in a form body (URL-encoded or multipart). It runs as a servlet
 * filter in front of Javalin's servlet, so such a request never reaches routing.
 *
 * <p>Why at this level: Javalin 6.7 routes by {@code Context.method()}, which is
 * {@code HandlerType.findByName(header("X-HTTP-Method-Override") ?: req().method)} with no setting to turn it off, so a
 * {@code GET} carrying {@code X-HTTP-Method-Override: DELETE} ran the DELETE handler and a proxy admitting only GETs was
 * bypassed. The other signals are honoured by other frameworks and proxies in front of or beside the gateway; refusing
 * them all means no layer ever acts on a method the request line does not carry.
 */
final class MethodOverrideRefusal implements Filter {
    static final List<String> HEADERS = List.of("X-HTTP-Method-Override", "X-HTTP-Method", "X-Method-Override");
    static final String PARAMETER = "_method";
    /** At most this many form fields are decoded (Jetty's own default for forms). */
    private static final int MAX_FORM_KEYS = 1000;

    private final long maxFormBytes;

    /** @param maxFormBytes the largest form body inspected (a larger one is a 413, as any body over the limit) */
    MethodOverrideRefusal(long maxFormBytes) {
        this.maxFormBytes = maxFormBytes;
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain) throws IOException, ServletException {
        HttpServletRequest req = (HttpServletRequest) request;
        HttpServletResponse res = (HttpServletResponse) response;
        try {
            Optional<String> header = overrideHeader(Collections.list(req.getHeaderNames()));
            if (header.isPresent()) throw refusal(header.get(), "header");
            if (inQuery(req.getQueryString())) throw refusal(PARAMETER, "query parameter");
            FormKind form = FormKind.of(req.getContentType());
            if (form == FormKind.NONE) {
                chain.doFilter(request, response);
                return;
            }
            // a form is read to look for _method and handed on unchanged: no endpoint takes one, each refuses it as before
            byte[] body;
            try (InputStream in = Http.boundedBody(req, maxFormBytes)) {
                body = in.readAllBytes();
            }
            if (inForm(form, req.getContentType(), body)) throw refusal(PARAMETER, "form field");
            chain.doFilter(new Replayed(req, body), response);
        } catch (ApiError e) {
            refuse(res, e);
        }
    }

    /** The first override header among {@code names} (any case), as the gateway names it. */
    static Optional<String> overrideHeader(List<String> names) {
        for (String name : names) {
            for (String h : HEADERS) if (h.equalsIgnoreCase(name)) return Optional.of(h);
        }
        return Optional.empty();
    }

    /** True when the raw query string has a {@code _method} parameter (percent-encoded or not, any case). */
    static boolean inQuery(String query) {
        if (query == null || query.isEmpty()) return false;
        MultiMap<String> params = new MultiMap<>();
        try {
            UrlEncoded.decodeUtf8To(query, params);
        } catch (RuntimeException e) { // undecodable: it cannot be told apart from one carrying _method
            throw ApiError.badRequest("the query string is not valid URL encoding: " + e.getMessage(), null);
        }
        return hasOverride(params.keySet());
    }

    /** True when a form body of {@code kind} has a {@code _method} field. */
    static boolean inForm(FormKind kind, String contentType, byte[] body) {
        try {
            if (kind == FormKind.URL_ENCODED) {
                MultiMap<String> fields = new MultiMap<>();
                UrlEncoded.decodeUtf8To(new ByteArrayInputStream(body), fields, body.length + 1, MAX_FORM_KEYS);
                return hasOverride(fields.keySet());
            }
            // held in memory: the threshold is above the body, which is already read and bounded
            MultipartConfigElement config = new MultipartConfigElement(null, body.length + 1L, body.length + 1L, body.length + 1);
            MultiPartFormInputStream parts = new MultiPartFormInputStream(new ByteArrayInputStream(body), contentType, config, null, MAX_FORM_KEYS);
            try {
                return hasOverride(parts.getParts().stream().map(Part::getName).toList());
            } finally {
                parts.deleteParts();
            }
        } catch (IOException | RuntimeException e) { // a form that cannot be read may hold _method: refused as well
            throw ApiError.badRequest("the form body cannot be read: " + e.getMessage(), null);
        }
    }

    private static boolean hasOverride(Iterable<String> names) {
        for (String n : names) if (n != null && PARAMETER.equalsIgnoreCase(n.strip())) return true;
        return false;
    }

    /** The 400 naming the signal ({@code field}) and where it was found. */
    private static ApiError refusal(String field, String where) {
        return ApiError.badRequest("method overrides are not accepted (" + field + " " + where + "): send the request with the method it means", field);
    }

    private static void refuse(HttpServletResponse res, ApiError e) throws IOException {
        byte[] json = JsonCodec.encode(e.body());
        res.setStatus(e.status());
        if (e.status() == 413) res.setHeader("Connection", "close");
        res.setContentType("application/json");
        res.setCharacterEncoding("UTF-8");
        res.setContentLength(json.length);
        res.getOutputStream().write(json);
    }

    /** The form media types; anything else carries no form field. */
    enum FormKind {
        NONE, URL_ENCODED, MULTIPART;

        static FormKind of(String contentType) {
            if (contentType == null) return NONE;
            String type = contentType.split(";", 2)[0].strip().toLowerCase(Locale.ROOT);
            return switch (type) {
                case "application/x-www-form-urlencoded" -> URL_ENCODED;
                case "multipart/form-data" -> MULTIPART;
                default -> NONE;
            };
        }
    }

    /** The request with its already-read body offered again. */
    private static final class Replayed extends HttpServletRequestWrapper {
        private final byte[] body;

        Replayed(HttpServletRequest request, byte[] body) {
            super(request);
            this.body = body;
        }

        @Override
        public ServletInputStream getInputStream() {
            ByteArrayInputStream in = new ByteArrayInputStream(body);
            return new ServletInputStream() {
                @Override
                public int read() {
                    return in.read();
                }

                @Override
                public int read(byte[] b, int off, int len) {
                    return in.read(b, off, len);
                }

                @Override
                public boolean isFinished() {
                    return in.available() == 0;
                }

                @Override
                public boolean isReady() {
                    return true;
                }

                @Override
                public void setReadListener(ReadListener listener) {
                    throw new IllegalStateException("a replayed body is read blocking");
                }
            };
        }

        @Override
        public BufferedReader getReader() {
            return new BufferedReader(new InputStreamReader(getInputStream(), StandardCharsets.UTF_8));
        }
    }
}
