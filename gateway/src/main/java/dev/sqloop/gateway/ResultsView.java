package dev.sqloop.gateway;

import dev.sqloop.common.SqloopHeaders;
import dev.sqloop.common.message.QuestionTask;
import dev.sqloop.common.runtime.TraceParent;
import dev.sqloop.common.topic.Topic;
import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.message.BatchManifest;
import dev.sqloop.common.message.ExampleRecord;
import dev.sqloop.common.message.QuestionResult;
import dev.sqloop.gateway.Views.BatchProgress;
import dev.sqloop.gateway.Views.BatchStatus;
import dev.sqloop.gateway.Views.QuestionState;
import dev.sqloop.gateway.Views.Submission;
import dev.sqloop.gateway.Views.Update;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;
import org.apache.kafka.streams.processor.StreamPartitioner;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * Results for polling, materialized from Kafka itself by a Kafka Streams topology: state survives restarts
 * (changelog topics) and is partitioned across gateway instances. Each endpoint reads exactly one store, and
 * a key owned by another instance is answered by forwarding the request to that instance.
 *
 * <ul>
 *   <li>{@code questions}: per question id, the submission ({@code retrieve-examples}, attempt 1), every
 *       attempt event ({@code events}) and the final result ({@code results}) merged into one state;</li>
 *   <li>{@code batch-status}: per batch id, the manifest joined with counts by status and reason;</li>
 *   <li>{@code results-by-batch}: {@code batchId|questionId} → result, partitioned by batch id, for streaming
 *       a batch's results with a prefix scan on one instance.</li>
 *   <li>{@code examples}: a global table of the {@code examples} topic, whole on every instance (a few hundred bytes
 *       per example), so any instance lists and pages through them without forwarding.</li>
 * </ul>
 */
final class ResultsView implements AutoCloseable {
    static final String QUESTIONS = "questions";
    static final String BATCH_STATUS = "batch-status";
    static final String RESULTS_BY_BATCH = "results-by-batch";
    static final String EXAMPLES = "examples";
    /** Per batch, its questions counted by their first error ({@link Views.FirstErrors}); internal: the console reads it. */
    static final String BATCH_FIRST_ERRORS = "batch-first-errors";
    /** Internal (joined into {@link #BATCH_STATUS}); named so that its changelog does not move when the topology grows. */
    static final String BATCH_PROGRESS = "batch-progress";
    /** Internal: the batches' manifests, under the name Streams generated for the store before it was named. */
    static final String MANIFESTS = "batches-STATE-STORE-0000000025";
    private static final String BATCH_SEPARATOR = "|";

    /** Partitions {@code batchId|questionId} keys like the default partitioner would partition the batch id. */
    private static final StreamPartitioner<String, Object> BY_BATCH = (topic, key, value, partitions) ->
            Optional.of(Set.of(Utils.toPositive(Utils.murmur2(batchOf(key).getBytes(StandardCharsets.UTF_8))) % partitions));

    private final KafkaStreams streams;
    private final String selfHostPort;

    ResultsView(GatewayConfig config, QuestionMetrics metrics, io.micrometer.core.instrument.MeterRegistry registry) {
        this.selfHostPort = hostPort(config.advertisedUrl());
        Properties p = new Properties();
        // a restarted gateway waits for its dead predecessor's session: bounded like the stages' (KafkaClients)
        p.putAll(dev.sqloop.common.runtime.KafkaClients.membershipDefaults(config.kafka()));
        p.putAll(config.kafka().clientOverrides());
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, config.applicationId());
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, config.kafka().bootstrapServers());
        p.put(StreamsConfig.APPLICATION_SERVER_CONFIG, selfHostPort);
        p.put(StreamsConfig.STATE_DIR_CONFIG, config.stateDir().toString());
        p.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        // Exactly once: the batch progress is an additive aggregate behind a repartition topic; at least once, a
        // SIGKILLed gateway restored a store that already counted records whose offsets it had not committed, and
        // counted them again on restart (PipelineCrashIT saw a batch "finished 42" of 40, done while 2 were pending).
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        // Pollers should see a result soon after it is produced: commit and flush often, no record cache.
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 200);
        p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        // Undecodable records on the view's own topics become dead letters; those a stage reads too, it reports.
        p.put(StreamsConfig.DESERIALIZATION_EXCEPTION_HANDLER_CLASS_CONFIG, ViewDeadLetters.class);
        p.put(ViewDeadLetters.REGISTRY_CONFIG, registry);
        // The examples global table: the same (default, fail) processing handler as the rest; the 5.0 default, and
        // leaving it unset logs a warning on every start.
        p.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_GLOBAL_ENABLED_CONFIG, true);
        p.put(StreamsConfig.consumerPrefix("auto.offset.reset"), "earliest");
        // A batch that failed half way was aborted: it must not show up as submitted.
        p.put(StreamsConfig.consumerPrefix("isolation.level"), "read_committed");
        this.streams = new KafkaStreams(topology(metrics), p);
    }

    /** @param metrics counts each question's result and attempts once, as they are folded into its state */
    static Topology topology(QuestionMetrics metrics) {
        StreamsBuilder b = new StreamsBuilder();
        JsonSerde<QuestionResult> resultSerde = new JsonSerde<>(QuestionResult.class);
        JsonSerde<Update> updateSerde = new JsonSerde<>(Update.class);
        JsonSerde<QuestionState> stateSerde = new JsonSerde<>(QuestionState.class);

        // The submission keeps the trace id its record carries (the console shows it, to find the question's spans): a
        // processor, as only one sees the record's headers. Stores and internal topics are named explicitly, so this
        // node's generated name is all that changed.
        KStream<String, Update> submitted = b.stream(Topics.RETRIEVE_EXAMPLES.name(), consumed(Topics.RETRIEVE_EXAMPLES))
                .filter((id, t) -> t != null && t.attempt() == 1)
                .processValues(() -> new FixedKeyProcessor<String, QuestionTask, Update>() {
                    private FixedKeyProcessorContext<String, Update> context;

                    @Override
                    public void init(FixedKeyProcessorContext<String, Update> context) {
                        this.context = context;
                    }

                    @Override
                    public void process(FixedKeyRecord<String, QuestionTask> r) {
                        Header h = r.headers().lastHeader(SqloopHeaders.TRACEPARENT);
                        String traceId = h == null ? null : TraceParent.traceId(new String(h.value(), StandardCharsets.UTF_8));
                        context.forward(r.withValue(new Update.Submitted(Submission.of(r.value(), traceId), r.value().round())));
                    }
                });
        KStream<String, Update> finished = b.stream(Topics.RESULTS.name(), Consumed.with(Serdes.String(), resultSerde))
                .filter((id, r) -> r != null)
                .mapValues(Update.Finished::new);
        KStream<String, Update> events = b.stream(Topics.EVENTS.name(), consumed(Topics.EVENTS))
                .filter((id, e) -> e != null)
                .mapValues(Update.Event::new);
        KTable<String, QuestionState> questions = submitted.merge(finished).merge(events)
                .groupByKey(Grouped.with(Serdes.String(), updateSerde))
                .aggregate(() -> QuestionState.EMPTY, (id, update, state) -> {
                            metrics.observe(state, update);
                            return state.apply(update);
                        },
                        Materialized.<String, QuestionState, KeyValueStore<Bytes, byte[]>>as(QUESTIONS)
                                .withKeySerde(Serdes.String()).withValueSerde(stateSerde));

        // A batch question's result by batch; a retried question's row is deleted (tombstone) until its new round ends.
        KTable<String, QuestionResult> resultsByBatch = questions.toStream()
                .filter((id, s) -> s != null && batchOf(s) != null && (s.result() != null || s.round() > 0))
                .map((id, s) -> KeyValue.pair(batchOf(s) + BATCH_SEPARATOR + id, s.result()))
                .repartition(Repartitioned.<String, QuestionResult>with(Serdes.String(), resultSerde)
                        .withName("results-by-batch").withStreamPartitioner(typed(BY_BATCH)))
                .toTable(Materialized.<String, QuestionResult, KeyValueStore<Bytes, byte[]>>as(RESULTS_BY_BATCH)
                        .withKeySerde(Serdes.String()).withValueSerde(resultSerde));

        JsonSerde<BatchProgress> progressSerde = new JsonSerde<>(BatchProgress.class);
        // Counted from the results-by-batch table, downstream of it: a result is in that store (committed in the same
        // transaction as its forward here) before any count includes it, so a batch that says "done" streams every
        // result. Counted beside it (from the questions table), the counts raced the results' own repartition: a batch
        // restarted in ServeIT said 25 of 25 finished while its results streamed 6.
        // A KTable aggregation subtracts a question's old result when it changes: redelivered duplicates never double
        // count, and a retried question (reopened: no result) leaves its old status's count until its new round ends.
        KTable<String, BatchProgress> progress = resultsByBatch
                .groupBy((key, r) -> KeyValue.pair(r.batchId(), r), Grouped.with("progress-by-batch", Serdes.String(), resultSerde))
                .aggregate(() -> BatchProgress.EMPTY, (batch, r, agg) -> agg.add(r, 1), (batch, r, agg) -> agg.add(r, -1),
                        Materialized.<String, BatchProgress, KeyValueStore<Bytes, byte[]>>as(BATCH_PROGRESS)
                                .withKeySerde(Serdes.String()).withValueSerde(progressSerde));
        // The manifests' store keeps the name Streams once generated for it (its changelog holds every batch's manifest)
        KTable<String, BatchManifest> manifests = b.table(Topics.BATCHES.name(), consumed(Topics.BATCHES),
                Materialized.<String, BatchManifest, KeyValueStore<Bytes, byte[]>>as(MANIFESTS)
                        .withKeySerde(Serdes.String()).withValueSerde(new JsonSerde<>(BatchManifest.class)));
        manifests.leftJoin(progress, BatchStatus::new,
                Materialized.<String, BatchStatus, KeyValueStore<Bytes, byte[]>>as(BATCH_STATUS)
                        .withKeySerde(Serdes.String()).withValueSerde(new JsonSerde<>(BatchStatus.class)));
        b.globalTable(Topics.EXAMPLES.name(), consumed(Topics.EXAMPLES),
                Materialized.<String, ExampleRecord, KeyValueStore<Bytes, byte[]>>as(EXAMPLES)
                        .withKeySerde(Serdes.String()).withValueSerde(new JsonSerde<>(ExampleRecord.class)));

        // First errors by batch, built last so that no node above changes its generated name. The result alone does not
        // say what attempt 1 got wrong (a repaired success carries none): the question's trace does, so this counts from
        // the questions table, keyed and partitioned like results-by-batch; a reopened (retried) question drops out
        // until its new round ends, and a trace event arriving after the result corrects its count.
        JsonSerde<Views.FirstErrors> firstErrorsSerde = new JsonSerde<>(Views.FirstErrors.class);
        questions.toStream()
                .filter((id, s) -> s != null && batchOf(s) != null && (s.result() != null || s.round() > 0))
                .map((id, s) -> KeyValue.pair(batchOf(s) + BATCH_SEPARATOR + id, Views.FirstErrors.of(s)))
                .repartition(Repartitioned.<String, String>with(Serdes.String(), Serdes.String())
                        .withName("first-error-by-question").withStreamPartitioner(typed(BY_BATCH)))
                .toTable(Materialized.<String, String, KeyValueStore<Bytes, byte[]>>as("first-error-by-question")
                        .withKeySerde(Serdes.String()).withValueSerde(Serdes.String()))
                .groupBy((key, firstError) -> KeyValue.pair(batchOf(key), firstError), Grouped.with("first-errors-by-batch", Serdes.String(), Serdes.String()))
                .aggregate(() -> Views.FirstErrors.EMPTY, (batch, e, agg) -> agg.add(e, 1), (batch, e, agg) -> agg.add(e, -1),
                        Materialized.<String, Views.FirstErrors, KeyValueStore<Bytes, byte[]>>as(BATCH_FIRST_ERRORS)
                                .withKeySerde(Serdes.String()).withValueSerde(firstErrorsSerde));
        return b.build();
    }

    /** String keys and the topic's own message type as JSON values. */
    private static <T> Consumed<String, T> consumed(Topic<T> topic) {
        return Consumed.with(Serdes.String(), new JsonSerde<>(topic.type()));
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static <V> StreamPartitioner<String, V> typed(StreamPartitioner<String, Object> p) {
        return (StreamPartitioner) p;
    }

    /** The batch a question belongs to (null for a single question). */
    private static String batchOf(QuestionState s) {
        if (s.result() != null) return s.result().batchId();
        return s.submission() == null ? null : s.submission().batchId();
    }

    static String batchOf(String compositeKey) {
        int i = compositeKey.indexOf(BATCH_SEPARATOR);
        return i < 0 ? compositeKey : compositeKey.substring(0, i);
    }

    void start(Consumer<KafkaStreams.State> onState) {
        streams.setStateListener((now, before) -> onState.accept(now));
        streams.start();
    }

    boolean running() {
        return streams.state() == KafkaStreams.State.RUNNING;
    }

    boolean alive() {
        KafkaStreams.State s = streams.state();
        return s != KafkaStreams.State.ERROR && s != KafkaStreams.State.NOT_RUNNING && s != KafkaStreams.State.PENDING_ERROR;
    }

    /** Where {@code key} of {@code store} lives: empty when on this instance, else the owner's base URI. */
    Optional<URI> ownerOf(String store, String key) {
        KeyQueryMetadata meta = store.equals(RESULTS_BY_BATCH)
                ? streams.queryMetadataForKey(store, key + BATCH_SEPARATOR, BY_BATCH)
                : streams.queryMetadataForKey(store, key, Serdes.String().serializer());
        if (meta == null || meta.equals(KeyQueryMetadata.NOT_AVAILABLE)) {
            throw new ApiError(503, "unavailable", "results are being rebalanced; retry shortly", null, null);
        }
        String owner = meta.activeHost().host() + ":" + meta.activeHost().port();
        return owner.equals(selfHostPort) ? Optional.empty() : Optional.of(URI.create("http://" + owner));
    }

    <V> Optional<V> get(String store, String key) {
        return whileAvailable(() -> Optional.ofNullable(this.<V>store(store).get(key)));
    }

    KeyValueIterator<String, QuestionResult> batchResults(String batchId) {
        return whileAvailable(() -> this.<QuestionResult>store(RESULTS_BY_BATCH)
                .prefixScan(batchId + BATCH_SEPARATOR, Serdes.String().serializer()));
    }

    /**
     * A batch's results in question id order from just after {@code afterQuestionId} (from the first when null): the
     * console's pages read on from their cursor instead of scanning the batch from its start.
     */
    KeyValueIterator<String, QuestionResult> batchResultsAfter(String batchId, String afterQuestionId) {
        if (afterQuestionId == null) return batchResults(batchId);
        // keys are batchId|questionId; '}' follows '|', so batchId} bounds the batch's keys from above
        return whileAvailable(() -> this.<QuestionResult>store(RESULTS_BY_BATCH)
                .range(batchId + BATCH_SEPARATOR + afterQuestionId + "\u0000", batchId + "}"));
    }

    /**
     * Every batch's status held by this instance (its share of the partitions; all of them with one instance): the
     * console's batch list, read from the same store as {@code GET /v1/batches/{id}}.
     */
    KeyValueIterator<String, Views.BatchStatus> batchStatuses() {
        return whileAvailable(() -> this.<Views.BatchStatus>store(BATCH_STATUS).all());
    }

    /**
     * The other gateway instances holding a share of the batch statuses, from Kafka Streams' metadata of this
     * application: a list of every batch asks each of them for its share.
     */
    java.util.List<URI> otherInstances() {
        return streams.metadataForAllStreamsClients().stream()
                .filter(m -> m.stateStoreNames().contains(BATCH_STATUS))
                .map(m -> m.hostInfo().host() + ":" + m.hostInfo().port())
                .filter(h -> !h.equals(selfHostPort)).distinct().sorted()
                .map(h -> URI.create("http://" + h)).toList();
    }

    Optional<ExampleRecord> example(String id) {
        return get(EXAMPLES, id);
    }

    /** One page of examples in id order, starting at the query's cursor; read from this instance's global table. */
    ExampleQuery.Page examples(ExampleQuery query) {
        return whileAvailable(() -> {
            try (KeyValueIterator<String, ExampleRecord> it = query.cursor() == null
                    ? this.<ExampleRecord>store(EXAMPLES).all()
                    : this.<ExampleRecord>store(EXAMPLES).range(query.cursor(), null)) {
                return query.page(new java.util.Iterator<>() {
                    public boolean hasNext() {
                        return it.hasNext();
                    }

                    public ExampleRecord next() {
                        return it.next().value;
                    }
                });
            }
        });
    }

    private <V> ReadOnlyKeyValueStore<String, V> store(String name) {
        return streams.store(StoreQueryParameters.fromNameAndType(name, QueryableStoreTypes.<String, V>keyValueStore()));
    }

    /** A store read during a rebalance or restore is a 503 the client retries, not a server error. */
    private static <T> T whileAvailable(java.util.function.Supplier<T> read) {
        try {
            return read.get();
        } catch (org.apache.kafka.streams.errors.InvalidStateStoreException e) {
            throw new ApiError(503, "unavailable", "results are being rebalanced or restored; retry shortly", null, null);
        }
    }

    static String hostPort(String url) {
        URI u = URI.create(url);
        return u.getHost() + ":" + u.getPort();
    }

    @Override
    public void close() {
        streams.close(Duration.ofSeconds(10));
    }
}
