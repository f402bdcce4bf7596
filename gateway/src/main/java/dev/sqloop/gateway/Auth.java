package dev.sqloop.gateway;

import io.javalin.http.Context;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** API keys ({@code X-API-Key} or {@code Authorization: Bearer}) to tenants; every other class asks {@link #tenant}. */
final class Auth {
    static final Set<String> PUBLIC_PATHS = Set.of("/healthy", "/ready", "/metrics", "/openapi.json");
    private static final String TENANT = "sqloop.tenant";

    private final Map<String, String> apiKeys;
    private final KeyGuesses guesses;

    Auth(Map<String, String> apiKeys, KeyGuesses guesses) {
        this.apiKeys = Map.copyOf(apiKeys);
        this.guesses = guesses;
    }

    /** A before-handler: sets the caller's tenant, or refuses with 401. Without keys everyone is {@code default}. */
    void authenticate(Context ctx) {
        // the console signs its browsers in itself (ConsoleSession) and checks the same keys
        if (PUBLIC_PATHS.contains(ctx.path()) || Console.serves(ctx.path())) return;
        if (apiKeys.isEmpty()) {
            ctx.attribute(TENANT, "default");
            return;
        }
        String key = Optional.ofNullable(ctx.header("X-API-Key"))
                .or(() -> Optional.ofNullable(ctx.header("Authorization")).filter(h -> h.startsWith("Bearer ")).map(h -> h.substring(7)))
                .orElse(null);
        String tenant = key == null ? null : apiKeys.get(key.trim());
        if (tenant == null) {
            if (key != null) guesses.wrongKey(ctx.ip(), java.time.Instant.now());
            throw new ApiError(401, "unauthorized", key == null ? "an API key is required (X-API-Key or Authorization: Bearer)" : "unknown API key", null, null);
        }
        ctx.attribute(TENANT, tenant);
    }

    static String tenant(Context ctx) {
        return ctx.attribute(TENANT);
    }
}
