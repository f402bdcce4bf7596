package dev.sqloop.generator;

import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.config.KafkaSettings;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.common.message.Tombstone;
import dev.sqloop.common.runtime.Cancellations;
import dev.sqloop.common.runtime.InfrastructureException;
import dev.sqloop.common.runtime.KafkaClients;
import dev.sqloop.common.runtime.OutgoingRecords;
import dev.sqloop.common.runtime.StageMetrics;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries each recorded window through its provider batch: submits a {@code SEALED} window (upload, create, then the
 * {@code SUBMITTED} state with the provider's id on {@code llm-batches}), polls it with growing waits, and when it ends
 * forwards each question's outcome ({@link BatchOutcomes}) and deletes the window. The windows are read from the
 * compacted topic from its beginning whenever its partition is assigned, so a restarted generator (or the group's next
 * member) resumes the batches in flight; it acts only once it has read to the end. A window recorded {@code SEALED} whose
 * submission may have happened before a crash is first looked for among the provider's batches by its metadata: nothing
 * is paid twice (OpenAI; Anthropic's batches carry no metadata, so there a crash in that moment submits the window again). A window whose questions are all cancelled has its provider batch cancelled.
 */
public final class ProviderBatchPoller implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ProviderBatchPoller.class);

    /** A window in memory and when to look at it next. */
    private static final class Tracked {
        ProviderBatch window;
        Instant nextLook;
        int looks;

        Tracked(ProviderBatch window, Instant nextLook) {
            this.window = window;
            this.nextLook = nextLook;
        }
    }

    private final ProviderBatchSettings settings;
    private final ProviderBatchApi client;
    private final GenerateStage stage;
    private final BatchLines.RequestSettings requests;
    private final LlmPrices prices;
    private final String provider;
    private final StageMetrics metrics;
    private final KafkaSettings kafka;
    private final String groupId;
    private final Clock clock;
    private final Map<String, Tracked> windows = new LinkedHashMap<>();
    private final Set<String> ended = new HashSet<>();
    private final Producer<byte[], byte[]> producer;
    private final Cancellations cancellations;
    private final Thread thread;
    private volatile KafkaConsumer<byte[], byte[]> consumer;
    private volatile boolean running = true;
    private Map<TopicPartition, Long> catchUpTo = Map.of();

    public ProviderBatchPoller(ProviderBatchSettings settings, ProviderBatchApi client, GenerateStage stage,
                               BatchLines.RequestSettings requests, LlmPrices prices, String provider, StageMetrics metrics,
                               KafkaSettings kafka, String groupId, Producer<byte[], byte[]> producer, Cancellations cancellations,
                               Clock clock) {
        this.settings = settings;
        this.client = client;
        this.stage = stage;
        this.requests = requests;
        this.prices = prices;
        this.provider = provider;
        this.metrics = metrics;
        this.kafka = kafka;
        this.groupId = groupId;
        this.producer = producer;
        this.cancellations = cancellations;
        this.clock = clock;
        this.thread = Thread.ofPlatform().daemon().name("llm-batch-poller").unstarted(this::run);
    }

    public ProviderBatchPoller start() {
        thread.start();
        return this;
    }

    /** Windows this poller is carrying now (for tests and logs). */
    public synchronized int windowsInFlight() {
        return windows.size();
    }

    private void run() {
        try {
            KafkaClients.ensureTopics(kafka, List.of(ProviderBatch.SPEC), Duration.ofSeconds(60));
            consumer = new KafkaConsumer<>(KafkaClients.consumerProperties(kafka, groupId, 500, groupId + "-poller"));
            consumer.subscribe(List.of(ProviderBatch.TOPIC.name()), new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                    forgetAll();
                }

                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    // the whole compacted topic is the state: read it again from the start
                    forgetAll();
                    consumer.seekToBeginning(partitions);
                    catchUpTo = new HashMap<>(consumer.endOffsets(partitions));
                }
            });
            while (running) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) apply(r);
                if (!caughtUp()) continue;
                for (Tracked t : due()) {
                    if (!running) break;
                    step(t);
                }
            }
        } catch (WakeupException e) {
            // closing
        } catch (RuntimeException e) {
            if (running) log.error("llm batch poller stopped: provider batches in flight are resumed by the next start", e);
        } finally {
            if (consumer != null) consumer.close(Duration.ofSeconds(5));
        }
    }

    private synchronized void forgetAll() {
        windows.clear();
        ended.clear();
    }

    private boolean caughtUp() {
        if (catchUpTo.isEmpty()) return !consumer.assignment().isEmpty();
        for (Map.Entry<TopicPartition, Long> e : catchUpTo.entrySet()) {
            if (consumer.position(e.getKey()) < e.getValue()) return false;
        }
        catchUpTo = Map.of();
        log.info("llm batch poller: {} provider batch window(s) in flight", windowsInFlight());
        return true;
    }

    private synchronized void apply(ConsumerRecord<byte[], byte[]> r) {
        if (r.key() == null) return;
        String id = new String(r.key(), StandardCharsets.UTF_8);
        if (r.value() == null) {
            windows.remove(id);
            return;
        }
        if (ended.contains(id)) return; // read back after this poller ended it
        ProviderBatch w;
        try {
            w = JsonCodec.decode(r.value(), ProviderBatch.class);
        } catch (JsonCodec.DecodeException e) {
            log.warn("llm batch poller: undecodable window record {} skipped: {}", id, e.getMessage());
            return;
        }
        Tracked t = windows.get(id);
        if (t == null) windows.put(id, new Tracked(w, clock.instant()));
        else if (w.version() >= t.window.version()) t.window = w;
    }

    private synchronized List<Tracked> due() {
        Instant now = clock.instant();
        return windows.values().stream().filter(t -> !t.nextLook.isAfter(now)).toList();
    }

    private void step(Tracked t) {
        ProviderBatch w = t.window;
        Instant now = clock.instant();
        try {
            if (w.sealedAt() != null && now.isAfter(w.sealedAt().plus(settings.giveUpAfter()))) {
                if (w.providerBatchId() != null) cancelQuietly(w.providerBatchId());
                finish(w, BatchOutcomes.allFailed(w, "provider batch " + w.providerBatchId() + " did not end within "
                        + settings.giveUpAfter() + " of its window " + w.windowId(), now));
                return;
            }
            if (w.tasks().stream().allMatch(this::cancelled)) {
                if (w.providerBatchId() != null) cancelQuietly(w.providerBatchId());
                finish(w, BatchOutcomes.of(w, "cancelled", null, Map.of(), this::cancelled, stage, prices, now));
                return;
            }
            if (w.state() == ProviderBatch.State.SEALED) {
                submit(t);
                return;
            }
            ProviderBatchApi.State status = client.state(w.providerBatchId());
            t.looks++;
            if (!status.ended()) {
                t.nextLook = now.plus(settings.pollDelay(t.looks));
                return;
            }
            Map<String, BatchLines.LineResult> lines = byWindowId(w, client.results(status));
            log.info("llm batch: provider batch {} of window {} ended {} with {} line(s) for {} request(s)", w.providerBatchId(),
                    w.windowId(), status.status(), lines.size(), w.tasks().size());
            finish(w, BatchOutcomes.of(w, status.status(), status.errors(), lines, this::cancelled, stage, prices, clock.instant()));
        } catch (LlmRejectedException e) {
            // the provider refuses the batch or no longer knows it: the questions end here, with its words
            log.warn("llm batch: window {} refused by the provider: {}", w.windowId(), e.getMessage());
            finishQuietly(t, BatchOutcomes.allFailed(w, e.getMessage(), clock.instant()));
        } catch (InfrastructureException e) {
            t.looks++;
            Duration wait = e.retryAfter().orElse(settings.pollDelay(t.looks));
            log.warn("llm batch: window {} waits {} ms for the provider: {}", w.windowId(), wait.toMillis(), e.getMessage());
            t.nextLook = now.plus(wait);
        } catch (KafkaWriteFailed e) {
            log.warn("llm batch: window {}: writing to Kafka failed, tried again: {}", w.windowId(), e.getMessage());
            t.nextLook = now.plus(settings.pollInterval());
        }
    }

    private void submit(Tracked t) {
        ProviderBatch w = t.window;
        Optional<String> existing = client.submittedAs(w.windowId());
        String batchId;
        String fileId = null;
        if (existing.isPresent()) {
            batchId = existing.get();
            log.info("llm batch: window {} was submitted before a restart as {}: resumed, not submitted again", w.windowId(), batchId);
        } else {
            // a datasource dropped from the settings since sealing has no line: its question ends unanswered, with the reason
            ProviderBatchApi.Submission submission = client.submit(w.windowId(), requestsOf(w), requests);
            batchId = submission.batchId();
            fileId = submission.inputFileId();
            log.info("llm batch: window {} submitted as provider batch {} ({} request(s))", w.windowId(), batchId, w.tasks().size());
        }
        ProviderBatch submitted = w.submitted(batchId, fileId);
        write(List.of(OutgoingRecords.record(ProviderBatch.TOPIC.name(), submitted, Map.of())));
        synchronized (this) {
            t.window = submitted;
            t.looks = 0;
            t.nextLook = clock.instant().plus(settings.pollDelay(1));
        }
    }

    private List<ProviderBatchApi.Request> requestsOf(ProviderBatch w) {
        List<ProviderBatchApi.Request> out = new ArrayList<>(w.tasks().size());
        for (int i = 0; i < w.tasks().size(); i++) {
            QuestionTask task = w.tasks().get(i);
            String id = ProviderBatch.customId(i, task);
            stage.promptOf(task).ifPresent(p -> out.add(new ProviderBatchApi.Request(id, p)));
        }
        return out;
    }

    /** The provider's lines under this window's custom ids, read by their index (a provider may have rewritten the rest). */
    static Map<String, BatchLines.LineResult> byWindowId(ProviderBatch w, Map<String, BatchLines.LineResult> lines) {
        Map<String, BatchLines.LineResult> out = new HashMap<>();
        lines.forEach((id, line) -> {
            int i = ProviderBatch.indexOf(id);
            if (i >= 0 && i < w.tasks().size()) out.put(ProviderBatch.customId(i, w.tasks().get(i)), line);
        });
        return out;
    }

    private boolean cancelled(QuestionTask task) {
        return cancellations.cancelled(task.headers());
    }

    private void cancelQuietly(String providerBatchId) {
        try {
            client.stop(providerBatchId);
            log.info("llm batch: provider batch {} cancelled", providerBatchId);
        } catch (RuntimeException e) {
            log.warn("llm batch: cancelling provider batch {} failed (its answers are discarded anyway): {}", providerBatchId, e.getMessage());
        }
    }

    private void finishQuietly(Tracked t, List<BatchOutcomes.Decided> decided) {
        try {
            finish(t.window, decided);
        } catch (KafkaWriteFailed e) {
            t.nextLook = clock.instant().plus(settings.pollInterval());
        }
    }

    /** Forwards every question's outcome, then deletes the window: a crash between them forwards again, never pays again. */
    private void finish(ProviderBatch w, List<BatchOutcomes.Decided> decided) {
        List<ProducerRecord<byte[], byte[]>> out = new ArrayList<>();
        for (BatchOutcomes.Decided d : decided) {
            out.addAll(OutgoingRecords.of(d.outcome(), d.task().headers()));
            if (d.usage().inputTokens() > 0 || d.usage().outputTokens() > 0) metrics.llmTokens(provider, requests.model(), d.usage());
        }
        write(out);
        write(List.of(OutgoingRecords.record(ProviderBatch.TOPIC.name(), new Tombstone(w.windowId()), Map.of())));
        synchronized (this) {
            windows.remove(w.windowId());
            ended.add(w.windowId());
        }
    }

    private static final class KafkaWriteFailed extends RuntimeException {
        KafkaWriteFailed(Throwable cause) {
            super(cause.toString(), cause);
        }
    }

    private void write(List<ProducerRecord<byte[], byte[]>> records) {
        List<Future<RecordMetadata>> acks = new ArrayList<>(records.size());
        try {
            for (ProducerRecord<byte[], byte[]> r : records) acks.add(producer.send(r));
            for (Future<RecordMetadata> a : acks) a.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaWriteFailed(e);
        } catch (Exception e) {
            throw new KafkaWriteFailed(e);
        }
    }

    @Override
    public void close() {
        running = false;
        KafkaConsumer<byte[], byte[]> c = consumer;
        if (c != null) c.wakeup();
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        producer.close(Duration.ofSeconds(5));
        cancellations.close();
    }
}
