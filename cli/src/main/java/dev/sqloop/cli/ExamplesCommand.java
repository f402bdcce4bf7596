package dev.sqloop.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.Whitespace;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code ./sqloop examples list|add|delete}: the gateway's {@code /v1/examples} from the command line. */
@Command(name = "examples",
        description = {"The gateway's few-shot examples: list, add, delete (/v1/examples; writes need a curator key when keys are on)."},
        subcommands = {ExamplesCommand.ListExamples.class, ExamplesCommand.Add.class, ExamplesCommand.Delete.class})
final class ExamplesCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        throw new Args.UsageException("examples what? one of: list, add, delete (./sqloop examples --help)");
    }

    @Command(name = "list", description = "List the examples the caller may see, newest first, a page at a time.")
    static final class ListExamples implements Callable<Integer> {
        @Option(names = "--datasource", paramLabel = "D", description = "only this datasource's")
        String datasource;
        @Option(names = "--source", paramLabel = "S", description = "only seed, auto (captured from a success) or manual (posted, saved) ones")
        String source;
        @Option(names = "--q", paramLabel = "TEXT", description = "only those whose question contains TEXT")
        String q;
        @Option(names = "--prefix", paramLabel = "P", description = "only those whose question starts with P")
        String prefix;
        @Option(names = "--tag", paramLabel = "T", description = "only those tagged T")
        String tag;
        @Option(names = "--limit", paramLabel = "N", description = "at most N (the gateway's default page otherwise)")
        Integer limit;
        @Option(names = "--cursor", paramLabel = "C", description = "the next page, as the previous one named it")
        String cursor;
        @Mixin
        GatewayOptions gateway;

        @Override
        public Integer call() throws Exception {
            Map<String, Object> filters = new LinkedHashMap<>();
            filters.put("datasource", datasource);
            filters.put("source", source);
            filters.put("q", q);
            filters.put("prefix", prefix);
            filters.put("tag", tag);
            filters.put("limit", limit);
            filters.put("cursor", cursor);
            StringBuilder query = new StringBuilder();
            filters.forEach((name, value) -> {
                if (value != null) query.append(query.isEmpty() ? "?" : "&").append(name).append('=').append(encode(value.toString()));
            });
            JsonNode page = gateway.client().get("/v1/examples" + query);
            for (JsonNode e : page.get("examples")) {
                System.out.printf("%s  %-6s  %-10s  %s%n      %s%n", e.get("id").asText(), e.get("source").asText(),
                        e.get("datasource").asText(), e.get("question").asText(), Whitespace.collapse(e.get("sql").asText()));
            }
            System.out.printf("%d example(s)%s%n", page.get("count").asInt(),
                    page.hasNonNull("nextCursor") ? "; more with --cursor " + page.get("nextCursor").asText() : "");
            return Main.OK;
        }
    }

    @Command(name = "add",
            description = {"Add a question→SQL example (the caller's own; --shared: every tenant's, curators only).",
                "Idempotent: the same question again replaces it, an identical one changes nothing."})
    static final class Add implements Callable<Integer> {
        @Option(names = "--datasource", paramLabel = "D", required = true, description = "the datasource it is about")
        String datasource;
        @Option(names = "--question", paramLabel = "Q", required = true, description = "the question")
        String question;
        @Option(names = "--sql", paramLabel = "SQL", required = true, description = "its SQL: one read-only query in the datasource's dialect")
        String sql;
        @Option(names = "--notes", paramLabel = "N", description = "why this SQL (shown to curators)")
        String notes;
        @Option(names = "--tags", paramLabel = "a,b", split = ",", description = "tags, comma-separated")
        List<String> tags = new ArrayList<>();
        @Option(names = "--shared", description = "share it with every tenant of the datasource (a curator's key)")
        boolean shared;
        @Mixin
        GatewayOptions gateway;

        @Override
        public Integer call() throws Exception {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("question", question);
            body.put("datasource", datasource);
            body.put("sql", sql);
            if (notes != null) body.put("notes", notes);
            if (!tags.isEmpty()) body.put("tags", tags);
            if (shared) body.put("shared", true);
            JsonNode r = gateway.client().postJson("/v1/examples", JsonCodec.encodeToString(body), 202, 200);
            System.out.println(("exists".equals(r.get("status").asText()) ? "already stored: " : "accepted: ") + r.get("id").asText());
            return Main.OK;
        }
    }

    @Command(name = "delete", description = "Delete an example by id (a tenant its own; curators any).")
    static final class Delete implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "ID", description = "the example's id (examples list shows it)")
        String id;
        @Mixin
        GatewayOptions gateway;

        @Override
        public Integer call() throws Exception {
            JsonNode r = gateway.client().delete("/v1/examples/" + encode(id), 202);
            System.out.println("deletion accepted: " + r.get("id").asText());
            return Main.OK;
        }
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
