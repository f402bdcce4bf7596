package dev.sqloop.cli;

import picocli.CommandLine.Option;

/** {@code --gateway URL} and {@code --api-key K}: where the client commands find the gateway, and who they are to it. */
public final class GatewayOptions {
    /** Where {@code ./sqloop serve} and {@code ./sqloop demo --serve} listen. */
    public static final String DEFAULT_URL = "http://127.0.0.1:8080";

    @Option(names = "--gateway", paramLabel = "URL",
            description = "the gateway (default: SQLOOP_GATEWAY_URL, else " + DEFAULT_URL + ", ./sqloop serve's)")
    String url;

    @Option(names = "--api-key", paramLabel = "KEY", description = "the gateway's API key (default: SQLOOP_API_KEY)")
    String apiKey;

    /** The gateway these options name, else {@code SQLOOP_GATEWAY_URL}/{@code SQLOOP_API_KEY}, else the default URL. */
    public GatewayClient client() {
        return new GatewayClient(url != null ? url : System.getenv().getOrDefault("SQLOOP_GATEWAY_URL", DEFAULT_URL),
                apiKey != null ? apiKey : System.getenv("SQLOOP_API_KEY"));
    }
}
