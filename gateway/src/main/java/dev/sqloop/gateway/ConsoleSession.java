package dev.sqloop.gateway;

import io.javalin.http.Context;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * How a browser holds the console's API key: entered once on the login page, then kept in an {@code HttpOnly},
 * {@code SameSite=Strict} cookie scoped to {@code /console} (no script reads it, no other site's page sends it), and
 * checked against {@code SQLOOP_GATEWAY_API_KEYS} on every request like the API's {@code X-API-Key}. The key itself
 * is the cookie's value so that every gateway instance accepts it with no shared session store; logging out clears it.
 *
 * <p>Every form that changes something carries a CSRF token, an HMAC of a fixed label keyed by the API key: a page of
 * another origin can neither read it nor compute it, and every instance computes the same one. With authentication off
 * (one tenant, {@code default}) the HMAC key is a random secret of this process.
 */
final class ConsoleSession {
    static final String COOKIE = "sqloop_console";
    static final String CSRF_FIELD = "csrf";
    /** A signed-in browser is asked for the key again after this long. */
    static final int MAX_AGE_SECONDS = 8 * 3600;
    private static final String CSRF_LABEL = "sqloop-console-csrf-v1";

    /** Who is signed in: the tenant, and the key the console's own API calls carry (null with authentication off). */
    record Signed(String tenant, String apiKey) {}

    private final Map<String, String> apiKeys;
    private final KeyGuesses guesses;
    private final byte[] processSecret = new byte[32];

    ConsoleSession(Map<String, String> apiKeys, KeyGuesses guesses) {
        this.apiKeys = Map.copyOf(apiKeys);
        this.guesses = guesses;
        new SecureRandom().nextBytes(processSecret);
    }

    ConsoleSession(Map<String, String> apiKeys) {
        this(apiKeys, new KeyGuesses());
    }

    /** The caller presented an unknown key (the sign-in form, a cookie, a header): one guess of its address. */
    void wrongKey(Context ctx) {
        guesses.wrongKey(ctx.ip(), java.time.Instant.now());
    }

    boolean authOff() {
        return apiKeys.isEmpty();
    }

    /** The tenant a key names; empty for an unknown key. */
    Optional<String> tenantOf(String key) {
        return key == null ? Optional.empty() : Optional.ofNullable(apiKeys.get(key.trim()));
    }

    /**
     * The caller: the cookie's key, else an {@code X-API-Key} header (how one gateway instance asks another for a page
     * it owns); empty when neither names a tenant. With authentication off, everyone is {@code default}.
     */
    Optional<Signed> signed(Context ctx) {
        if (authOff()) return Optional.of(new Signed("default", null));
        String key = Optional.ofNullable(decode(ctx.cookie(COOKIE))).orElse(ctx.header("X-API-Key"));
        Optional<Signed> signed = tenantOf(key).map(t -> new Signed(t, key.trim()));
        if (signed.isEmpty() && key != null && !key.isBlank()) wrongKey(ctx);
        return signed;
    }

    /** Signs the browser in: the key in an HttpOnly, SameSite=Strict cookie for /console ({@code Secure} over HTTPS). */
    static void signIn(Context ctx, String key) {
        ctx.header("Set-Cookie", cookie(Base64.getUrlEncoder().withoutPadding().encodeToString(key.trim().getBytes(StandardCharsets.UTF_8)),
                MAX_AGE_SECONDS, secure(ctx)));
    }

    static void signOut(Context ctx) {
        ctx.header("Set-Cookie", cookie("", 0, secure(ctx)));
    }

    static String cookie(String value, int maxAge, boolean secure) {
        return COOKIE + "=" + value + "; Path=/console; Max-Age=" + maxAge + "; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "");
    }

    private static boolean secure(Context ctx) {
        return "https".equalsIgnoreCase(ctx.scheme()) || "https".equalsIgnoreCase(ctx.header("X-Forwarded-Proto"));
    }

    private static String decode(String cookie) {
        if (cookie == null || cookie.isEmpty()) return null;
        try {
            return new String(Base64.getUrlDecoder().decode(cookie), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return null; // not a value this console wrote: as if signed out
        }
    }

    /** The CSRF token of {@code signed}'s forms. */
    String csrf(Signed signed) {
        byte[] key = signed.apiKey() == null ? processSecret : signed.apiKey().getBytes(StandardCharsets.UTF_8);
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(mac.doFinal(CSRF_LABEL.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
        }
    }

    /** Whether a form's token is {@code signed}'s, compared in constant time. */
    boolean validCsrf(Signed signed, String token) {
        return token != null && MessageDigest.isEqual(csrf(signed).getBytes(StandardCharsets.US_ASCII), token.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * A state-changing request must come from a page of this origin: browsers send {@code Origin} on every form POST;
     * one naming another host is refused even before its token is read (the login form has no token yet).
     */
    static boolean sameOrigin(Context ctx) {
        String origin = ctx.header("Origin");
        if (origin == null) return true; // not a browser's cross-site form: a non-browser client, held to the token and key
        String host = ctx.header("Host");
        return host != null && (origin.equals("http://" + host) || origin.equals("https://" + host));
    }
}
