package dev.sqloop.common.runtime;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqloop.common.message.TokenUsage;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The names, labels and buckets Prometheus shows for what stages report: the contract in METRICS.md. */
class MicrometerStageMetricsTest {
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final MicrometerStageMetrics metrics = new MicrometerStageMetrics(registry);

    private void assertScraped(String line) {
        String scrape = registry.scrape();
        assertTrue(scrape.contains(line), () -> "missing " + line + " in\n" + scrape);
    }

    @Test
    void shouldExportLlmCallsUnderTheOpenTelemetryGenAiNamesAndBuckets() {
        metrics.llmCall("openai", "gpt-4o-mini", "", Duration.ofMillis(300));
        metrics.llmCall("openai", "gpt-4o-mini", "503", Duration.ofMillis(30));
        metrics.llmTokens("openai", "gpt-4o-mini", new TokenUsage(120, 15));
        String ok = "error_type=\"\",gen_ai_operation_name=\"chat\",gen_ai_provider_name=\"openai\",gen_ai_request_model=\"gpt-4o-mini\"";
        assertScraped("gen_ai_client_operation_duration_seconds_count{" + ok + "} 1");
        assertScraped("gen_ai_client_operation_duration_seconds_count{" + ok.replace("error_type=\"\"", "error_type=\"503\"") + "} 1");
        assertScraped("gen_ai_client_operation_duration_seconds_bucket{" + ok + ",le=\"0.32\"} 1");
        assertScraped("gen_ai_client_operation_duration_seconds_bucket{" + ok + ",le=\"0.16\"} 0");
        assertScraped("gen_ai_client_operation_duration_seconds_bucket{" + ok + ",le=\"81.92\"} 1");
        assertScraped("gen_ai_client_operation_duration_seconds_max{" + ok + "}");
        String tokens = "gen_ai_operation_name=\"chat\",gen_ai_provider_name=\"openai\",gen_ai_request_model=\"gpt-4o-mini\",gen_ai_token_type=";
        assertScraped("gen_ai_client_token_usage_bucket{" + tokens + "\"input\",le=\"256.0\"} 1");
        assertScraped("gen_ai_client_token_usage_bucket{" + tokens + "\"input\",le=\"64.0\"} 0");
        assertScraped("gen_ai_client_token_usage_bucket{" + tokens + "\"output\",le=\"16.0\"} 1");
        assertScraped("gen_ai_client_token_usage_sum{" + tokens + "\"input\"} 120");
        assertFalse(registry.scrape().contains("sqloop_llm_duration") || registry.scrape().contains("sqloop_llm_tokens"),
                "the old LLM meters are gone");
    }

    @Test
    void shouldExportCachedInputTokensAsTheirOwnTypeAndTheCostAsACounter() {
        metrics.llmTokens("openai", "gpt-4o-mini", new TokenUsage(1500, 20, 1152, 0.25));
        metrics.llmTokens("openai", "gpt-4o-mini", new TokenUsage(300, 10, 0, 0.5));
        String tokens = "gen_ai_operation_name=\"chat\",gen_ai_provider_name=\"openai\",gen_ai_request_model=\"gpt-4o-mini\",gen_ai_token_type=";
        assertScraped("gen_ai_client_token_usage_sum{" + tokens + "\"input\"} 1800");
        assertScraped("gen_ai_client_token_usage_sum{" + tokens + "\"cache_read\"} 1152");
        assertScraped("gen_ai_client_token_usage_count{" + tokens + "\"cache_read\"} 2");
        assertScraped("gen_ai_client_token_usage_sum{" + tokens + "\"output\"} 30");
        assertScraped("sqloop_llm_cost_usd_total{gen_ai_provider_name=\"openai\",gen_ai_request_model=\"gpt-4o-mini\"} 0.75");
    }

    @Test
    void shouldExportEngineCallsUnderTheOpenTelemetryDbName() {
        metrics.dbCall("duckdb", "", Duration.ofMillis(3));
        metrics.dbCall("duckdb", "column_not_found", Duration.ofMillis(2));
        assertScraped("db_client_operation_duration_seconds_count{db_system_name=\"duckdb\",error_type=\"\"} 1");
        assertScraped("db_client_operation_duration_seconds_count{db_system_name=\"duckdb\",error_type=\"column_not_found\"} 1");
        assertScraped("db_client_operation_duration_seconds_bucket{db_system_name=\"duckdb\",error_type=\"\",le=\"0.005\"} 1");
        assertScraped("db_client_operation_duration_seconds_bucket{db_system_name=\"duckdb\",error_type=\"\",le=\"0.001\"} 0");
        assertScraped("db_client_operation_duration_seconds_bucket{db_system_name=\"duckdb\",error_type=\"\",le=\"10.0\"} 1");
    }

    @Test
    void shouldExportFewshotRetrievalHitsShortcutsAndCaptures() {
        metrics.fewshotRetrieval(Duration.ofMillis(20));
        metrics.fewshotHits(3);
        metrics.fewshotHits(0);
        metrics.shortcut("demo", "exact");
        metrics.capture();
        assertScraped("sqloop_fewshot_retrieval_duration_seconds_bucket{le=\"0.025\"} 1");
        assertScraped("sqloop_fewshot_retrieval_duration_seconds_count 1");
        assertScraped("sqloop_fewshot_hits_sum 3");
        assertScraped("sqloop_fewshot_hits_count 2");
        assertScraped("sqloop_fewshot_hits_max 3");
        assertFalse(registry.scrape().contains("sqloop_fewshot_hits_bucket"), "a summary, not a histogram");
        assertScraped("sqloop_fewshot_shortcuts_total{datasource=\"demo\",kind=\"exact\"} 1");
        assertScraped("sqloop_fewshot_captures_total 1");
    }
}
