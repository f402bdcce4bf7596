package dev.sqloop.embedded;

import dev.sqloop.embedded.pipeline.DemoBatch;
import dev.sqloop.embedded.pipeline.EmbeddedPipeline;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sqloop.cli.GatewayClient;
import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.message.ExampleIds;
import dev.sqloop.common.message.QuestionResult;
import dev.sqloop.testkit.HeadlessBrowser;
import dev.sqloop.testkit.TestDirs;
import dev.sqloop.testkit.engines.DemoWarehouse;
import dev.sqloop.testkit.llm.OracleResponder;
import dev.sqloop.testkit.llm.SimulatedLlm;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Cookie;
import org.openqa.selenium.NoAlertPresentException;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;

/**
 * The review console in a real browser (Debian's Chromium through chromium-driver, Selenium) against the embedded
 * pipeline running the demo batch with the simulated LLM's faults: sign-in, the batch list and a batch whose counts
 * equal {@code GET /v1/batches/{id}} (with its first errors and repairs by decision), a click-through to a repaired
 * question's attempts and diff, a question full of markup shown as text, the review queue holding every failure and
 * repair and "retry every failure" from it running the batch's failures again, save / mark wrong / roll back changing what {@code GET /v1/examples} returns, another tenant's
 * ids answering 404, and no action without the key's cookie and the page's CSRF token. Every page loads with no
 * console error (a Content-Security-Policy violation is one). Screenshots go to {@code target/console-screenshots}.
 */
class ConsoleBrowserIT {
    private static final String EVIL = "<script>alert('pwned')</script><img src=x onerror=alert(1)> How many \"orders\" & <b>lines</b>?";
    /** A question whose gold SQL names a table the warehouse lacks: it fails whatever the LLM's faults, so the queue has a failure. */
    private static final String DOOMED = "How many shipments are there?";
    private static final Path SHOTS = Path.of("target", "console-screenshots");
    private static final HttpClient HTTP = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();

    @Test
    void shouldShowTheBatchItsQuestionsAndCurateExamplesInABrowser() throws Exception {
        Path work = TestDirs.create("sqloop-console-it-");
        Path warehouse = DemoWarehouse.create(work.resolve("warehouse.duckdb"));
        DemoBatch demo = DemoBatch.load();
        Map<String, String> gold = new LinkedHashMap<>(demo.goldByQuestion());
        gold.put(EVIL, "SELECT count(*) FROM lineitem");
        gold.put(DOOMED, "SELECT count(*) FROM shipments");
        SimulatedLlm llm = SimulatedLlm.start(new OracleResponder(gold, DemoBatch.faultMix(), "duckdb", 7), 7);
        Map<String, String> settings = Map.of(
                "SQLOOP_DATASOURCE_DEMO_DIALECT", "duckdb",
                "SQLOOP_DATASOURCE_DEMO_URL", "jdbc:duckdb:" + warehouse.toAbsolutePath(),
                "SQLOOP_GATEWAY_API_KEYS", "key-a:tenant-a,key-b:tenant-b");
        Files.createDirectories(SHOTS);
        try (EmbeddedPipeline pipeline = EmbeddedPipeline.start(work.resolve("pipeline"), settings, llm, false)) {
            String base = pipeline.gatewayUrl();
            GatewayClient a = new GatewayClient(base, "key-a");
            GatewayClient b = new GatewayClient(base, "key-b");
            Path file = demo.writeJsonl(work.resolve("batch.jsonl"), "demo");
            Files.writeString(file, JsonCodec.encodeToString(Map.of("question", EVIL, "datasource", "demo", "clientId", "evil")) + "\n",
                    java.nio.file.StandardOpenOption.APPEND);
            Files.writeString(file, JsonCodec.encodeToString(Map.of("question", DOOMED, "datasource", "demo", "clientId", "doomed")) + "\n",
                    java.nio.file.StandardOpenOption.APPEND);
            String batchId = a.submitBatchFile(file).get("batchId").asText();
            JsonNode status = awaitDone(a, batchId);
            JsonNode[] latest = {status};
            List<QuestionResult> results = results(a, batchId);
            QuestionResult corrected = results.stream().filter(r -> "corrected_success".equals(r.reason())).findFirst().orElseThrow(
                    () -> new AssertionError("the fault mix repairs some questions: " + status));
            QuestionResult firstTry = results.stream().filter(r -> "first_attempt_success".equals(r.reason())
                    && !r.questionId().equals(corrected.questionId()) && !EVIL.equals(r.question())).findFirst().orElseThrow();
            QuestionResult evil = results.stream().filter(r -> EVIL.equals(r.question())).findFirst().orElseThrow();
            QuestionResult doomed = results.stream().filter(r -> DOOMED.equals(r.question())).findFirst().orElseThrow();
            assertEquals("failed", doomed.status(), "a question about a table the warehouse lacks: " + doomed);
            // the batch's successes were captured as tenant-a's examples, with their provenance
            awaitTrue(() -> examples(a, "?batch=" + batchId + "&source=auto").size() > 0, "the batch's captures are listed by provenance");

            String exampleId = ExampleIds.of("demo", corrected.question(), "tenant-a").toString();
            WebDriver browser = browser();
            try {
                // --- sign in: a page without the cookie goes to the login form
                browser.get(base + "/console/batches");
                assertTrue(browser.getCurrentUrl().endsWith("/console/login"), browser.getCurrentUrl());
                shot(browser, "login");
                browser.findElement(By.name("key")).sendKeys("key-a");
                navigate(browser, browser.findElement(By.cssSelector("form button[type=submit]")));
                Cookie cookie = browser.manage().getCookieNamed("sqloop_console");
                assertNotNull(cookie, "signed in");
                assertTrue(cookie.isHttpOnly(), "no script reads the key");
                assertEquals("Strict", cookie.getSameSite());
                assertEquals("/console", cookie.getPath());

                // --- the batch list: the counts of GET /v1/batches/{id}
                assertTrue(browser.getCurrentUrl().endsWith("/console/batches"), browser.getCurrentUrl());
                WebElement row = browser.findElement(By.cssSelector("tr[data-batch='" + batchId + "']"));
                assertCounts(status, row);
                noConsoleErrors(browser, "batches");
                shot(browser, "batches");
                // the list's filters: the finished batch is "done", not "running"; a part of its id finds it
                browser.get(base + "/console/batches?state=done&q=" + batchId.substring(0, 8).toUpperCase(java.util.Locale.ROOT));
                assertFalse(browser.findElements(By.cssSelector("tr[data-batch='" + batchId + "']")).isEmpty(), "done, found by id");
                browser.get(base + "/console/batches?state=running");
                assertTrue(browser.findElements(By.cssSelector("tr[data-batch='" + batchId + "']")).isEmpty(), "not running");
                noConsoleErrors(browser, "batches filtered");
                browser.get(base + "/console/batches");

                // --- the batch: counts, splits, table; filter the repaired ones and click through
                navigate(browser, browser.findElement(By.cssSelector("tr[data-batch='" + batchId + "']")).findElement(By.tagName("a")));
                long t0 = System.nanoTime();
                browser.get(base + "/console/batches/" + batchId);
                double pageSeconds = (System.nanoTime() - t0) / 1e9;
                assertCounts(status, browser.findElement(By.id("progress")));
                assertEquals(status.get("byReason").path("corrected_success").asLong(),
                        Long.parseLong(browser.findElement(By.cssSelector("#outcomes tr[data-reason=corrected_success] td.n")).getText()));
                assertEquals(Math.min(50, results.size()), browser.findElements(By.cssSelector("#questions tbody tr")).size(),
                        "the first page of the table");
                // first errors by category and stage: one per question whose attempt 1 failed (counted from the traces)
                long notFirstTry = results.stream().filter(r -> !"first_attempt_success".equals(r.reason())).count();
                awaitTrue(() -> {
                    browser.get(base + "/console/batches/" + batchId);
                    return browser.findElements(By.cssSelector("#first-errors td.n")).stream().mapToLong(e -> Long.parseLong(e.getText().strip()))
                            .sum() == notFirstTry;
                }, "first errors counted for the " + notFirstTry + " questions whose attempt 1 failed");
                long decided = 0;
                for (String d : List.of("corrected_success", "unchanged_sql", "max_attempts", "non_retryable")) {
                    long shown = Long.parseLong(browser.findElement(By.cssSelector("#repairs tr[data-decision=" + d + "] td.n")).getText().strip());
                    assertEquals(status.get("byReason").path(d).asLong(), shown, "repairs ending " + d);
                    decided += shown;
                }
                assertTrue(decided > 0, "the fault mix sends questions to repair");
                noConsoleErrors(browser, "batch");
                shot(browser, "batch");
                System.out.printf("console: batch page of %d questions in %.2f s%n", results.size(), pageSeconds);

                new org.openqa.selenium.support.ui.Select(browser.findElement(By.name("outcome"))).selectByValue("corrected_success");
                navigate(browser, browser.findElement(By.cssSelector("form.filters button[type=submit]")));
                List<WebElement> repaired = browser.findElements(By.cssSelector("#questions tbody tr"));
                assertEquals(status.get("byReason").path("corrected_success").asLong(), repaired.size(), "the filter, on the server");
                navigate(browser, repaired.stream().filter(r -> r.getAttribute("data-question").equals(corrected.questionId())).findFirst()
                        .orElseThrow().findElement(By.tagName("a")));

                // --- a repaired question: every attempt in order, with the diff between them
                assertTrue(browser.getCurrentUrl().endsWith("/console/questions/" + corrected.questionId()), browser.getCurrentUrl());
                // the trace events come on their own topic: the result can be in the view a moment before the last of them
                String questionPage = browser.getCurrentUrl();
                awaitTrue(() -> {
                    if (browser.findElements(By.cssSelector("#trace details.prompt")).size() >= 2) return true;
                    browser.get(questionPage);
                    return false;
                }, "both attempts' traced prompts in the view");
                List<WebElement> attempts = browser.findElements(By.cssSelector("#trace li.attempt"));
                assertTrue(attempts.size() >= 2, "the attempts of a repaired question: " + attempts.size());
                assertTrue(attempts.stream().anyMatch(e -> "2".equals(e.getAttribute("data-attempt"))), "its second attempt");
                assertFalse(browser.findElements(By.cssSelector("#trace .diff .hunk")).isEmpty(), "what changed between the attempts");
                assertEquals(corrected.sql().strip(), browser.findElement(By.id("final-sql")).getText().strip());
                // each attempt's prompt: the schema's tables shown, and its own tokens (the simulated LLM reports usage)
                List<WebElement> prompts = browser.findElements(By.cssSelector("#trace details.prompt"));
                assertTrue(prompts.size() >= 2, "a prompt per attempt: " + prompts.size());
                assertTrue(prompts.getFirst().getText().matches("(?s)prompt: (whole|linked) schema, [1-9]\\d* table\\(s\\), \\d+ example\\(s\\) · [1-9]\\d* in.*"),
                        prompts.getFirst().getText());
                assertTrue(browser.findElement(By.id("trace-id")).getText().matches("[0-9a-f]{32}"), "the question's trace id");
                noConsoleErrors(browser, "question");
                shot(browser, "question");

                // --- markup in a question is text: shown as typed, nothing of it runs
                browser.get(base + "/console/questions/" + evil.questionId());
                assertEquals(EVIL, browser.findElement(By.id("question-text")).getText());
                assertThrows(NoAlertPresentException.class, () -> browser.switchTo().alert());
                assertTrue(browser.findElements(By.cssSelector("#question-text *, img[src='x'], main script")).isEmpty(),
                        "no element made of the question's text");
                noConsoleErrors(browser, "question with markup");
                shot(browser, "question-markup");

                // --- the review queue: every failure and every repaired question of the batch, each with why
                browser.get(base + "/console/queue?batch=" + batchId + "&limit=200");
                Map<String, String> flagsOf = new LinkedHashMap<>();
                for (WebElement q : browser.findElements(By.cssSelector("section.queue-batch[data-batch='" + batchId + "'] tr[data-question]"))) {
                    flagsOf.put(q.getAttribute("data-question"), q.getAttribute("data-flags"));
                }
                java.util.Set<String> captured = new java.util.HashSet<>();
                // the API lists a batch's captures (by their provenance) without naming the question: matched by its text
                examples(a, "?batch=" + batchId + "&source=auto&limit=1000").forEach(e -> captured.add(e.path("question").asText()));
                for (QuestionResult r : results) {
                    boolean failed = !r.succeeded() && !"cancelled".equals(r.reason());
                    boolean wasRepaired = "corrected_success".equals(r.reason());
                    boolean hint = r.issues().stream().anyMatch(dev.sqloop.common.message.Issue::hint);
                    boolean noRows = r.succeeded() && r.execution() != null && r.execution().rowCount() == 0;
                    if (failed) assertTrue(flagsOf.getOrDefault(r.questionId(), "").contains("failed"), "a failure is queued: " + r.questionId());
                    if (wasRepaired) assertTrue(flagsOf.getOrDefault(r.questionId(), "").contains("repaired"), "a repair is queued: " + r.questionId());
                    if (hint) assertTrue(flagsOf.getOrDefault(r.questionId(), "").contains("hint"), "a hint is queued: " + r.questionId());
                    if (!failed && !wasRepaired && !hint && !noRows && !captured.contains(r.question())) {
                        assertFalse(flagsOf.containsKey(r.questionId()), "nothing to look at, not queued: " + r.questionId());
                    }
                }
                assertTrue(flagsOf.containsKey(doomed.questionId()) && flagsOf.containsKey(corrected.questionId()), flagsOf.toString());
                assertEquals(EVIL, browser.findElement(By.cssSelector("tr[data-question='" + evil.questionId() + "'] td a")).getText(),
                        "the queue shows question text as text too");
                noConsoleErrors(browser, "queue");
                shot(browser, "queue");

                // --- save with SQL that is no read-only query: the API's refusal on the page, nothing changes
                browser.get(base + "/console/questions/" + corrected.questionId());
                WebElement sql = browser.findElement(By.name("sql"));
                sql.clear();
                sql.sendKeys("DROP TABLE orders");
                navigate(browser, browser.findElement(By.id("save")));
                assertTrue(browser.findElement(By.cssSelector("p.error")).getText().contains("read-only"),
                        browser.findElement(By.cssSelector("p.error")).getText());
                assertEquals("auto", a.get("/v1/examples/" + exampleId).get("source").asText(), "the captured example is unchanged");
                List<String> refused = consoleMessages(browser);
                assertTrue(refused.size() == 1 && refused.getFirst().contains("/save") && refused.getFirst().contains("400"),
                        "the browser saw the refusal's status, and nothing else: " + refused);

                // --- save an edited SQL: it becomes the tenant's own (manual) example of the question
                String edited = corrected.sql().strip() + " -- reviewed";
                sql = browser.findElement(By.name("sql"));
                sql.clear();
                sql.sendKeys(edited);
                navigate(browser, browser.findElement(By.id("save")));
                assertTrue(browser.findElement(By.cssSelector("p.notice")).getText().startsWith("Saved"));
                awaitTrue(() -> "manual".equals(example(a, exampleId).path("source").asText()), "the save reached GET /v1/examples");
                assertEquals(edited, example(a, exampleId).get("sql").asText());

                // --- mark wrong: the tenant's example of that question leaves GET /v1/examples
                String wrongId = ExampleIds.of("demo", firstTry.question(), "tenant-a").toString();
                assertEquals(200, a.fetch("/v1/examples/" + wrongId).status(), "captured before");
                browser.get(base + "/console/questions/" + firstTry.questionId());
                navigate(browser, browser.findElement(By.id("mark-wrong")));
                assertTrue(browser.findElement(By.cssSelector("p.notice")).getText().startsWith("Marked wrong"));
                awaitTrue(() -> a.fetch("/v1/examples/" + wrongId).status() == 404, "the marked question's example is gone");

                // --- the examples page: provenance, and the batch's captures rolled back in one action
                browser.get(base + "/console/examples?batch=" + batchId);
                assertFalse(browser.findElements(By.cssSelector("#examples tbody tr")).isEmpty());
                noConsoleErrors(browser, "examples");
                shot(browser, "examples");
                browser.get(base + "/console/batches/" + batchId);
                navigate(browser, browser.findElement(By.cssSelector("form[action$='/rollback-captures'] button")));
                assertTrue(browser.findElement(By.cssSelector("p.notice")).getText().contains("captured"));
                awaitTrue(() -> examples(a, "?batch=" + batchId).isEmpty(), "every capture of the batch rolled back");
                assertEquals("manual", example(a, exampleId).get("source").asText(), "a reviewed (saved) example stays");

                // --- from the queue: retry every failure of the batch (any reason but cancelled), and come back to the queue
                browser.get(base + "/console/queue?batch=" + batchId + "&why=failed");
                navigate(browser, browser.findElement(By.cssSelector("section.queue-batch[data-batch='" + batchId + "'] button.retry-batch")));
                assertTrue(browser.getCurrentUrl().contains("/console/queue?why=failed&batch=" + batchId), browser.getCurrentUrl());
                assertTrue(browser.findElement(By.cssSelector("p.notice")).getText().startsWith("The batch's failures are sent again"),
                        browser.findElement(By.cssSelector("p.notice")).getText());
                awaitTrue(() -> {
                    JsonNode q = a.get("/v1/questions/" + doomed.questionId());
                    return q.path("round").asInt() >= 1 && "failed".equals(q.path("status").asText());
                }, "the doomed question ran again in round 1 (not an outage failure: only 'every failure' picks it) and failed again");
                long retried = results.stream().filter(r -> !r.succeeded() && !"cancelled".equals(r.reason())).count();
                awaitTrue(() -> {
                    JsonNode now = a.get("/v1/batches/" + batchId);
                    long rerun = 0;
                    for (JsonNode n : now.path("byRound")) rerun += n.asLong();
                    latest[0] = now;
                    return now.get("done").asBoolean() && rerun == retried;
                }, "every failure of the batch ran again and finished");

                // --- another tenant: the same ids answer 404, in the page as in the API
                browser.manage().deleteAllCookies();
                browser.get(base + "/console/login");
                browser.findElement(By.name("key")).sendKeys("key-b");
                navigate(browser, browser.findElement(By.cssSelector("form button[type=submit]")));
                assertTrue(browser.findElements(By.cssSelector("tr[data-batch='" + batchId + "']")).isEmpty(), "not in b's list");
                browser.get(base + "/console/batches/" + batchId);
                assertEquals("404", browser.findElement(By.tagName("h1")).getText());
            } finally {
                browser.quit();
            }
            String cookieA = "sqloop_console=" + Base64.getUrlEncoder().withoutPadding().encodeToString("key-a".getBytes(StandardCharsets.UTF_8));
            String cookieB = "sqloop_console=" + Base64.getUrlEncoder().withoutPadding().encodeToString("key-b".getBytes(StandardCharsets.UTF_8));
            for (String page : List.of("/console/batches/" + batchId, "/console/questions/" + evil.questionId(),
                    "/console/batches/" + batchId + "/export.csv")) {
                assertEquals(404, get(base + page, cookieB).statusCode(), page);
            }
            assertEquals(404, b.fetch("/v1/batches/" + batchId).status(), "as the API answers");
            assertEquals(404, b.fetch("/v1/questions/" + evil.questionId()).status());

            // --- no action without the key's cookie and the page's token
            String action = base + "/console/questions/" + corrected.questionId() + "/mark-wrong";
            assertEquals(401, post(action, null, "", null).statusCode(), "no cookie: nothing done");
            assertEquals(403, post(action, cookieA, "", null).statusCode(), "the cookie without the form's token");
            assertEquals(403, post(action, cookieA, "csrf=forged", null).statusCode(), "a forged token");
            assertEquals(403, post(action, cookieA, "csrf=" + csrfOf(base, cookieA, corrected.questionId()), "http://evil.example")
                    .statusCode(), "a form of another origin, even with the token");
            assertEquals(200, a.fetch("/v1/examples/" + exampleId).status(), "none of them deleted the example");

            // --- exports: CSV and JSONL of the whole batch, streamed
            HttpResponse<String> csv = get(base + "/console/batches/" + batchId + "/export.csv", cookieA);
            assertEquals(200, csv.statusCode());
            assertTrue(csv.body().startsWith("question_id,status,reason,"), csv.body());
            for (QuestionResult r : results) assertTrue(csv.body().contains("\r\n" + r.questionId() + ","), "a row of " + r.questionId());
            HttpResponse<String> jsonl = get(base + "/console/batches/" + batchId + "/export.jsonl?outcome=corrected_success", cookieA);
            assertEquals(latest[0].get("byReason").path("corrected_success").asLong(), jsonl.body().lines().filter(l -> !l.isBlank()).count());
        } finally {
            llm.close();
        }
    }

    // ------------------------------------------------------------------------------------------------- helpers

    private static WebDriver browser() throws Exception {
        ChromeOptions options = new ChromeOptions();
        options.setBinary(HeadlessBrowser.binary().toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,1000",
                "--no-first-run", "--user-data-dir=" + TestDirs.create("sqloop-console-chromium-"));
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        options.setCapability("goog:loggingPrefs", logs);
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(HeadlessBrowser.driver().toFile())
                .usingAnyFreePort().build();
        ChromeDriver driver = new ChromeDriver(service, options);
        driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
        return driver;
    }

    /** Everything the page logged at SEVERE since the last call: script errors, failed loads, CSP violations. */
    private static void noConsoleErrors(WebDriver browser, String page) {
        assertEquals(List.of(), consoleMessages(browser), "console errors on the " + page + " page");
    }

    /** The warnings and errors the browser logged since the last call. */
    private static List<String> consoleMessages(WebDriver browser) {
        List<String> errors = new ArrayList<>();
        for (LogEntry e : browser.manage().logs().get(LogType.BROWSER)) {
            if (e.getLevel().intValue() >= Level.WARNING.intValue()) errors.add(e.getLevel() + " " + e.getMessage());
        }
        return errors;
    }

    /** A PNG of the whole page (the window stretched to it, at most 4,000 px high). */
    private static void shot(WebDriver browser, String name) throws Exception {
        long height = ((Number) ((org.openqa.selenium.JavascriptExecutor) browser)
                .executeScript("return document.documentElement.scrollHeight")).longValue();
        browser.manage().window().setSize(new org.openqa.selenium.Dimension(1400, (int) Math.min(4000, Math.max(1000, height + 100))));
        Path png = ((org.openqa.selenium.TakesScreenshot) browser).getScreenshotAs(OutputType.FILE).toPath();
        Files.copy(png, SHOTS.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
        browser.manage().window().setSize(new org.openqa.selenium.Dimension(1400, 1000));
    }

    /** The page's counts ({@code data-count} cells) are those of the API's batch status. */
    private static void assertCounts(JsonNode status, WebElement scope) {
        Map<String, Long> expected = new LinkedHashMap<>();
        expected.put("total", status.get("total").asLong());
        expected.put("finished", status.get("finished").asLong());
        expected.put("pending", status.get("pending").asLong());
        expected.put("first_attempt_success", status.get("byReason").path("first_attempt_success").asLong());
        expected.put("corrected_success", status.get("byReason").path("corrected_success").asLong());
        expected.put("failed", status.get("byStatus").path("failed").asLong());
        expected.forEach((name, count) -> assertEquals(count,
                Long.parseLong(scope.findElement(By.cssSelector("[data-count=" + name + "]")).getText().strip()), name));
    }

    private static JsonNode awaitDone(GatewayClient client, String batchId) throws Exception {
        long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
        while (System.nanoTime() < deadline) {
            JsonNode s = client.getPatiently("/v1/batches/" + batchId, Duration.ofSeconds(30));
            if (s.get("done").asBoolean()) return s;
            Thread.sleep(300);
        }
        throw new AssertionError("batch " + batchId + " not done in 5 minutes");
    }

    private static List<QuestionResult> results(GatewayClient client, String batchId) throws Exception {
        List<QuestionResult> out = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(client.stream("/v1/batches/" + batchId + "/results"), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                if (!line.isBlank()) out.add(JsonCodec.decode(line.getBytes(StandardCharsets.UTF_8), QuestionResult.class));
            }
        }
        return out;
    }

    private static List<JsonNode> examples(GatewayClient client, String query) {
        try {
            List<JsonNode> out = new ArrayList<>();
            client.get("/v1/examples" + query).get("examples").forEach(out::add);
            return out;
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static JsonNode example(GatewayClient client, String id) {
        try {
            GatewayClient.Answer answer = client.fetch("/v1/examples/" + id);
            return answer.status() == 200 ? answer.body() : JsonCodec.mapper().createObjectNode();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private interface Check {
        boolean holds() throws Exception;
    }

    /**
     * Clicks a link or a form's button and waits until the page it was on is gone: a click returns before the navigation
     * it starts, so reading the next page at once could read the old one (a "p.notice" missing at random).
     */
    private static void navigate(WebDriver browser, org.openqa.selenium.WebElement target) throws Exception {
        org.openqa.selenium.WebElement old = browser.findElement(By.tagName("html"));
        target.click();
        awaitTrue(() -> {
            try {
                old.isEnabled();
                return false;
            } catch (org.openqa.selenium.StaleElementReferenceException gone) {
                return true;
            }
        }, "the page after the click loaded");
    }

    private static void awaitTrue(Check check, String what) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!check.holds()) {
            if (System.nanoTime() > deadline) throw new AssertionError("not within 60 s: " + what);
            Thread.sleep(200);
        }
    }

    private static HttpResponse<String> get(String url, String cookie) throws Exception {
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(url)).GET();
        if (cookie != null) r.header("Cookie", cookie);
        return HTTP.send(r.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> post(String url, String cookie, String form, String origin) throws Exception {
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form));
        if (cookie != null) r.header("Cookie", cookie);
        if (origin != null) r.header("Origin", origin);
        return HTTP.send(r.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The CSRF token a question page of this session carries in its forms. */
    private static String csrfOf(String base, String cookie, String questionId) throws Exception {
        String html = get(base + "/console/questions/" + questionId, cookie).body();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"").matcher(html);
        assertTrue(m.find(), "a form with its token");
        return m.group(1);
    }
}
