package dev.sqloop.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Redocly CLI's OpenAPI linter, a pinned release from the npm registry, for tests that lint a document a server
 * serves. Installed once per machine with {@code npm install --prefix} into a cache directory (node and npm from
 * Debian's packages when the machine has none, as {@link HeadlessBrowser} installs Chromium), then run as a program:
 * {@code redocly lint --format=json}, whose problems come back as records.
 */
public final class OpenApiLinter {
    private static final Logger LOG = LoggerFactory.getLogger(OpenApiLinter.class);
    /** The release linted with; 2.x needs Node.js 20.19 or later (1.34.21 does not install from the registry here). */
    public static final String REDOCLY_CLI = "@redocly/cli@2.77.0";
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * One problem the linter found.
     *
     * @param severity {@code error} or {@code warn}
     * @param pointer where in the document (a JSON pointer)
     */
    public record Problem(String rule, String severity, String message, String pointer) {
        @Override
        public String toString() {
            return severity + " " + rule + " at " + pointer + ": " + message;
        }
    }

    /** What one run reported: the linter's own totals, its version and every problem. */
    public record Report(String version, int errors, int warnings, List<Problem> problems) {}

    private OpenApiLinter() {}

    /** Lints {@code document} (JSON or YAML) with the rules of {@code config} (a redocly.yaml). */
    public static Report lint(Path document, Path config) throws IOException, InterruptedException {
        Path redocly = install();
        Path out = Files.createTempFile("sqloop-redocly-", ".json");
        Path err = Files.createTempFile("sqloop-redocly-", ".log");
        try {
            ProcessBuilder pb = new ProcessBuilder(redocly.toString(), "lint", document.toAbsolutePath().toString(),
                    "--config", config.toAbsolutePath().toString(), "--format=json",
                    // redocly stops at 100 problems: a broken document's later problems (what a test looks for) were cut
                    "--max-problems", "100000")
                    .redirectOutput(out.toFile()).redirectError(err.toFile());
            // offline here: no telemetry, no update check
            pb.environment().putAll(Map.of("REDOCLY_TELEMETRY", "off", "REDOCLY_SUPPRESS_UPDATE_NOTICE", "true",
                    "NO_UPDATE_NOTIFIER", "1", "CI", "true"));
            Process p = pb.start();
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("redocly lint did not finish in 120 s: " + Files.readString(err));
            }
            String stdout = Files.readString(out);
            // exit 1 means "problems found"; anything without a JSON report is a failure of the linter itself
            if (!stdout.strip().startsWith("{")) {
                throw new IOException("redocly lint exited " + p.exitValue() + " without a report:\n" + stdout + "\n" + Files.readString(err));
            }
            JsonNode report = JSON.readTree(stdout);
            List<Problem> problems = new ArrayList<>();
            for (JsonNode problem : report.path("problems")) {
                problems.add(new Problem(problem.path("ruleId").asText(), problem.path("severity").asText(), problem.path("message").asText(),
                        problem.path("location").path(0).path("pointer").asText()));
            }
            return new Report(report.path("version").asText(), report.path("totals").path("errors").asInt(),
                    report.path("totals").path("warnings").asInt(), problems);
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    /**
     * The {@code redocly} program, installed on first use under {@code $SQLOOP_TOOLS_DIR} (default
     * {@code ~/.cache/sqloop/tools}); a file lock keeps two test JVMs from installing at once.
     */
    public static synchronized Path install() throws IOException, InterruptedException {
        return ToolCache.installed(REDOCLY_CLI.replaceAll("[^A-Za-z0-9.]+", "-"), "node_modules/.bin/redocly", prefix -> {
            LOG.info("installing {} into {}", REDOCLY_CLI, prefix);
            ToolCache.run(prefix, prefix.resolve("npm-install.log"), Duration.ofMinutes(10), ToolCache.npm().toString(), "install",
                    "--prefix", prefix.toString(), "--no-audit", "--no-fund", "--no-save", "--loglevel=error", REDOCLY_CLI);
        });
    }
}
