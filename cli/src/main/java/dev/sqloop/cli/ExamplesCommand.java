package dev.sqloop.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.Whitespace;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** {@code ./sqloop examples list|add|delete}: the gateway's {@code /v1/examples} from the command line. */
final class ExamplesCommand {
    private static final List<String> FILTERS = List.of("datasource", "source", "q", "prefix", "tag", "limit", "cursor");

    static final String USAGE = """
            usage: ./sqloop examples list|add|delete [options] --gateway URL [--api-key K]

              list [--datasource D] [--source seed|auto|manual] [--q TEXT] [--prefix P] [--tag T] [--limit N] [--cursor C]
              add --datasource D --question Q --sql SQL [--notes N] [--tags a,b]
              delete ID
            The few-shot examples through the gateway's /v1/examples (writes need a curator key).
            """;

    static final String[] OPTIONS = {"gateway", "api-key", "datasource", "source", "q", "prefix", "tag", "limit", "cursor",
            "question", "sql", "notes", "tags"};

    private ExamplesCommand() {}

    static int run(Args args) throws Exception {
        String action = args.positional().isEmpty() ? "" : args.positional().get(0);
        GatewayClient client = GatewayClient.fromArgs(args);
        return switch (action) {
            case "list" -> list(client, args);
            case "add" -> add(client, args);
            case "delete" -> {
                if (args.positional().size() < 2) throw new Args.UsageException("examples delete needs an example id");
                JsonNode r = client.delete("/v1/examples/" + encode(args.positional().get(1)), 202);
                System.out.println("deletion accepted: " + r.get("id").asText());
                yield 0;
            }
            default -> throw new Args.UsageException("examples what? one of: list, add, delete");
        };
    }

    private static int list(GatewayClient client, Args args) throws Exception {
        StringBuilder query = new StringBuilder();
        for (String f : FILTERS) {
            String v = args.string(f, null);
            if (v != null) query.append(query.isEmpty() ? "?" : "&").append(f).append('=').append(encode(v));
        }
        JsonNode page = client.get("/v1/examples" + query);
        for (JsonNode e : page.get("examples")) {
            System.out.printf("%s  %-6s  %-10s  %s%n      %s%n", e.get("id").asText(), e.get("source").asText(),
                    e.get("datasource").asText(), e.get("question").asText(), Whitespace.collapse(e.get("sql").asText()));
        }
        System.out.printf("%d example(s)%s%n", page.get("count").asInt(),
                page.hasNonNull("nextCursor") ? "; more with --cursor " + page.get("nextCursor").asText() : "");
        return 0;
    }

    private static int add(GatewayClient client, Args args) throws Exception {
        Map<String, Object> body = new LinkedHashMap<>();
        for (String f : List.of("question", "datasource", "sql")) {
            String v = args.string(f, null);
            if (v == null) throw new Args.UsageException("examples add needs --" + f);
            body.put(f, v);
        }
        if (args.string("notes", null) != null) body.put("notes", args.string("notes", null));
        if (args.string("tags", null) != null) body.put("tags", List.of(args.string("tags", "").split(",")));
        JsonNode r = client.postJson("/v1/examples", JsonCodec.encodeToString(body), 202, 200);
        System.out.println(("exists".equals(r.get("status").asText()) ? "already stored: " : "accepted: ") + r.get("id").asText());
        return 0;
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
