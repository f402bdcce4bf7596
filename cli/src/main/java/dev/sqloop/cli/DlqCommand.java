package dev.sqloop.cli;

import dev.sqloop.common.JsonCodec;
import dev.sqloop.common.topic.Topics;
import dev.sqloop.common.Whitespace;
import dev.sqloop.common.config.EnvConfig;
import dev.sqloop.common.config.KafkaSettings;
import dev.sqloop.common.runtime.KafkaClients;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code ./sqloop dlq list|show|replay}: reads the {@code dlq} topic back (no consumer group, nothing committed) and
 * re-produces chosen dead letters to the topic they came from, each once: the replayed record and its mark on the
 * compacted {@code dlq-replays} topic are written in one Kafka transaction, and marks are read ({@code read_committed})
 * after this replay's transactional producer has fenced any other one.
 */
@Command(name = "dlq",
        description = {"The dead letters on the dlq topic: list them, show one, replay them to their topic (each once).",
            "",
            "Read without a consumer group (nothing committed, no one disturbed). Kafka comes from --bootstrap or",
            "SQLOOP_BOOTSTRAP_SERVERS, with the SQLOOP_KAFKA_* client settings as for the services. A dead letter is named",
            "by its dlq offset (P:OFFSET on a dlq of several partitions)."},
        subcommands = {DlqCommand.ListLetters.class, DlqCommand.Show.class, DlqCommand.Replay.class},
        exitCodeListHeading = "%nexit codes:%n",
        exitCodeList = {"0:done", "1:failed (brokers unreachable within --timeout, no such dead letter, a fenced replay)", "2:usage"})
public final class DlqCommand implements Callable<Integer> {
    /** The transactional id of every replay: a second replay fences the first, so the two cannot both send one record. */
    static final String TRANSACTIONAL_ID = "sqloop-dlq-replay";
    static final int LIST_LIMIT = 100;
    static final int MESSAGE_CHARS = 100;
    static final int HEADER_CHARS = 2_000;
    static final int VALUE_CHARS = 10_000;
    /** Dead letters per replay transaction: well inside the transaction timeout, and progress kept if one fails. */
    static final int TRANSACTION_SIZE = 200;

    /**
     * What {@code dlq-replays} holds per dead letter: where it went and when. {@code origin} ({@code topic-partition@offset}
     * of the original record) tells a mark left by a deleted and recreated dlq, whose offsets start again, from a real one.
     */
    public record ReplayMark(String deadLetter, String origin, String topic, String key, Instant replayedAt) {
        /** Whether this mark is about {@code d} (an unreadable mark, with no origin, counts: never send twice). */
        boolean isFor(DeadLetter d) {
            return origin == null || origin.equals(d.origin());
        }
    }

    /** The mark saying {@code d} was replayed, or null. */
    static ReplayMark markOf(DeadLetter d, Map<String, ReplayMark> marks) {
        ReplayMark mark = marks.get(d.id());
        return mark != null && mark.isFor(d) ? mark : null;
    }

    /** The environment (SQLOOP_BOOTSTRAP_SERVERS, SQLOOP_KAFKA_*) and the streams the subcommands use. */
    private final Map<String, String> env;
    private final PrintStream out;
    private final PrintStream err;
    private KafkaSettings kafka;
    private Duration timeout;

    @Spec
    CommandSpec spec;

    /** The command on this environment and these streams (tests pass a map and capture the output). */
    public DlqCommand(Map<String, String> env, PrintStream out, PrintStream err) {
        this.env = env;
        this.out = out;
        this.err = err;
    }

    /** {@code ./sqloop dlq} alone: the usage, as a usage error. */
    @Override
    public Integer call() {
        spec.commandLine().usage(out);
        return Main.USAGE;
    }

    /** Runs {@code ./sqloop dlq ARGS} on {@code env} and these streams, as {@link Main#run(List)} does. */
    public static int run(List<String> argv, Map<String, String> env, PrintStream out, PrintStream err) throws Exception {
        CommandLine c = Main.configure(new CommandLine(new DlqCommand(env, out, err)).setCommandName("./sqloop dlq"));
        c.setOut(new java.io.PrintWriter(out, true));
        return Main.run(c, argv);
    }

    /** Where Kafka is and how long to wait for it: every subcommand's. */
    static final class KafkaOptions {
        @Option(names = "--bootstrap", paramLabel = "HOST:PORT", description = "the Kafka brokers (default: SQLOOP_BOOTSTRAP_SERVERS)")
        String bootstrap;
        @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "15s", description = "how long to wait for the brokers (250ms, 15s, 2m)")
        String timeout;
    }

    @Command(name = "list",
            description = {"One line per dead letter (the latest --limit): dlq offset, time, stage, reason, original",
                "topic-partition@offset, question id, whether it was replayed, the exception on one line."})
    static final class ListLetters implements Callable<Integer> {
        @ParentCommand
        DlqCommand dlq;
        @Mixin
        KafkaOptions kafka;
        @Mixin
        DeadLetterFilter.Options filter;
        @Option(names = "--limit", paramLabel = "N", defaultValue = "" + LIST_LIMIT, description = "the latest N (default ${DEFAULT-VALUE})")
        int limit;

        @Override
        public Integer call() throws Exception {
            return dlq.connect(kafka).guarded(() -> dlq.list(filter.filter(Instant.now()), positive("--limit", limit)));
        }
    }

    @Command(name = "show",
            description = "One dead letter in full: every header (values past 2,000 chars cut), the key, the value as UTF-8 (past 10,000).")
    static final class Show implements Callable<Integer> {
        @ParentCommand
        DlqCommand dlq;
        @Mixin
        KafkaOptions kafka;
        @Parameters(index = "0", paramLabel = "OFFSET", description = "the dead letter's dlq offset (17, or 2:17 on partition 2)")
        String id;

        @Override
        public Integer call() throws Exception {
            String parsed = DeadLetterFilter.parseId(id);
            return dlq.connect(kafka).guarded(() -> dlq.show(parsed));
        }
    }

    @Command(name = "replay",
            description = {"Re-produce dead letters to their original topic with their original key, value and headers",
                "(sqloop.error.* removed: the attempt is unchanged, a replay is not a repair), each only once: the record and",
                "its mark on dlq-replays go in one transaction, and a concurrent replay is fenced."})
    static final class Replay implements Callable<Integer> {
        @ParentCommand
        DlqCommand dlq;
        @Mixin
        KafkaOptions kafka;
        @Mixin
        DeadLetterFilter.Options filter;
        @Option(names = "--limit", paramLabel = "N", description = "the oldest N not yet replayed")
        Integer limit;
        @Option(names = "--dry-run", description = "say what would be replayed, send nothing")
        boolean dryRun;

        @Override
        public Integer call() throws Exception {
            int max = limit == null ? Integer.MAX_VALUE : positive("--limit", limit);
            return dlq.connect(kafka).guarded(() -> dlq.replay(filter.filter(Instant.now()), max, dryRun));
        }
    }

    /** The brokers this command talks to, from the options or the environment. */
    private DlqCommand connect(KafkaOptions options) {
        String bootstrap = options.bootstrap != null ? options.bootstrap : env.get(KafkaSettings.BOOTSTRAP);
        if (bootstrap == null || bootstrap.isBlank()) {
            throw new Args.UsageException("dlq: where is Kafka? give --bootstrap HOST:PORT or set " + KafkaSettings.BOOTSTRAP);
        }
        // the duration syntax of the SQLOOP_* settings (250ms, 15s, 2m)
        this.timeout = new EnvConfig(Map.of("--timeout", options.timeout)).duration("--timeout", Duration.ofSeconds(15));
        this.kafka = new KafkaSettings(bootstrap, new EnvConfig(env).prefixed(KafkaSettings.CLIENT_PREFIX));
        return this;
    }

    private interface Action {
        int run() throws Exception;
    }

    /** Runs the action, saying in one line on stderr why it failed when the brokers did not answer or it could not be done. */
    private int guarded(Action action) throws Exception {
        try {
            return action.run();
        } catch (Unreachable e) {
            err.println("sqloop: dlq: cannot reach the Kafka brokers at " + kafka.bootstrapServers() + " within " + timeout.toSeconds()
                    + " s (--bootstrap or " + KafkaSettings.BOOTSTRAP + "): " + e.getMessage());
            return Main.FAILED;
        } catch (Failed e) {
            err.println("sqloop: dlq: " + e.getMessage());
            return Main.FAILED;
        }
    }

    private int list(DeadLetterFilter filter, int limit) {
        Set<String> topics = topics();
        List<DeadLetter> matching = filter.select(read(topics, Topics.DLQ.name()).stream().map(DeadLetter::of).toList());
        Map<String, ReplayMark> replays = replays(topics);
        List<DeadLetter> shown = matching.subList(Math.max(0, matching.size() - limit), matching.size());
        if (!topics.contains(Topics.DLQ.name())) out.println("(no " + Topics.DLQ.name() + " topic on " + kafka.bootstrapServers() + " yet)");
        out.println(listHeader());
        for (DeadLetter d : shown) out.println(line(d, markOf(d, replays)));
        out.println(matching.size() == shown.size() ? matching.size() + " dead letter(s)"
                : "the last " + shown.size() + " of " + matching.size() + " dead letters (--limit)");
        return 0;
    }

    private int show(String id) {
        Set<String> topics = topics();
        List<DeadLetter> all = read(topics, Topics.DLQ.name()).stream().map(DeadLetter::of).toList();
        DeadLetter found = all.stream().filter(d -> d.id().equals(id)).findFirst().orElse(null);
        if (found == null) {
            throw new Failed("no dead letter " + id + " in " + Topics.DLQ.name() + " (" + all.size() + " there"
                    + (all.isEmpty() ? "" : ", " + all.getFirst().id() + " to " + all.getLast().id()) + ")");
        }
        out.print(details(found, markOf(found, replays(topics))));
        return 0;
    }

    private int replay(DeadLetterFilter filter, int limit, boolean dryRun) throws Exception {
        Set<String> topics = topics();
        if (!dryRun && !topics.contains(Topics.DLQ_REPLAYS.name())) {
            KafkaClients.ensureTopics(kafka, List.of(spec(Topics.DLQ_REPLAYS.name())), timeout);
        }
        KafkaProducer<byte[], byte[]> producer = dryRun ? null : transactionalProducer();
        try {
            // after initTransactions: a replay still running was fenced (its open transaction aborted), one that
            // committed is in the marks read below, so no dead letter is sent by both
            topics = topics();
            List<DeadLetter> selected = filter.select(read(topics, Topics.DLQ.name()).stream().map(DeadLetter::of).toList());
            Map<String, ReplayMark> replays = replays(topics);
            List<DeadLetter> toSend = new ArrayList<>();
            int skipped = 0;
            for (DeadLetter d : selected) {
                String why = skipReason(d, markOf(d, replays), topics);
                if (why == null && toSend.size() >= limit) why = "past --limit " + limit;
                if (why != null) {
                    out.println("skipped   " + d.id() + "  " + d.origin() + "  " + why);
                    skipped++;
                } else {
                    toSend.add(d);
                }
            }
            if (dryRun) {
                for (DeadLetter d : toSend) out.println("would replay " + d.id() + "  " + d.origin() + " → " + d.originalTopic() + describeKey(d));
                out.println(toSend.size() + " to replay, " + skipped + " skipped (dry run: nothing sent)");
                return 0;
            }
            int replayed = 0;
            for (int from = 0; from < toSend.size(); from += TRANSACTION_SIZE) {
                List<DeadLetter> chunk = toSend.subList(from, Math.min(toSend.size(), from + TRANSACTION_SIZE));
                List<RecordMetadata> sent = sendInOneTransaction(producer, chunk);
                for (int i = 0; i < chunk.size(); i++) {
                    DeadLetter d = chunk.get(i);
                    out.println("replayed  " + d.id() + "  " + d.origin() + " → " + sent.get(i).topic() + "-"
                            + sent.get(i).partition() + "@" + sent.get(i).offset() + describeKey(d));
                }
                replayed += chunk.size();
            }
            out.println(replayed + " replayed, " + skipped + " skipped");
            return 0;
        } finally {
            if (producer != null) producer.close(Duration.ofSeconds(5));
        }
    }

    /** Why a selected dead letter is not replayed, or null. */
    static String skipReason(DeadLetter d, ReplayMark mark, Set<String> topics) {
        if (mark != null) return "already replayed at " + mark.replayedAt().truncatedTo(ChronoUnit.SECONDS) + " to " + mark.topic();
        if (d.originalTopic() == null) return "no sqloop.error.topic header: where it came from is unknown";
        if (!topics.contains(d.originalTopic())) return "topic " + d.originalTopic() + " does not exist";
        return null;
    }

    private List<RecordMetadata> sendInOneTransaction(KafkaProducer<byte[], byte[]> producer, List<DeadLetter> chunk) throws Exception {
        producer.beginTransaction();
        try {
            List<Future<RecordMetadata>> futures = new ArrayList<>();
            Instant now = Instant.now();
            for (DeadLetter d : chunk) {
                futures.add(producer.send(new ProducerRecord<>(d.originalTopic(), null, d.key(), d.value(), d.originalHeaders())));
                String key = d.key() == null ? null : new String(d.key(), StandardCharsets.UTF_8);
                producer.send(new ProducerRecord<>(Topics.DLQ_REPLAYS.name(), d.id().getBytes(StandardCharsets.UTF_8),
                        JsonCodec.encode(new ReplayMark(d.id(), d.origin(), d.originalTopic(), key, now))));
            }
            producer.commitTransaction();
            List<RecordMetadata> sent = new ArrayList<>();
            for (Future<RecordMetadata> f : futures) sent.add(f.get());
            return sent;
        } catch (KafkaException e) {
            if (fenced(e)) {
                throw new Failed("another dlq replay started meanwhile and took over (this one's open transaction was aborted, "
                        + "nothing of it sent): " + e.getMessage());
            }
            try {
                producer.abortTransaction();
            } catch (KafkaException ignored) {
                // the producer is unusable: the broker aborts the transaction when it times out
            }
            throw new Failed("replay failed, its last transaction aborted (nothing of it sent): " + e);
        }
    }

    /** Whether another producer with the replay's transactional id took over (the broker says so in two ways). */
    static boolean fenced(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof ProducerFencedException || t instanceof InvalidProducerEpochException) return true;
        }
        return false;
    }

    private KafkaProducer<byte[], byte[]> transactionalProducer() {
        Map<String, Object> p = KafkaClients.producerProperties(kafka, "sqloop-dlq-replay");
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, TRANSACTIONAL_ID);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) timeout.toMillis());
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p);
        try {
            producer.initTransactions();
        } catch (KafkaException e) {
            producer.close(Duration.ZERO);
            throw new Failed("cannot start the replay transaction: " + e);
        }
        return producer;
    }

    // ---- reading

    /** The broker's topics; also where an unreachable broker is noticed, before any consumer waits on it. */
    private Set<String> topics() {
        Map<String, Object> p = new HashMap<>(kafka.clientOverrides());
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) Math.min(timeout.toMillis(), 30_000));
        try (Admin admin = Admin.create(p)) {
            return admin.listTopics(new ListTopicsOptions().timeoutMs((int) timeout.toMillis())).names().get();
        } catch (ExecutionException e) {
            throw new Unreachable(String.valueOf(e.getCause()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Failed("interrupted");
        }
    }

    /** The latest mark per dead letter (none if the topic does not exist yet). */
    private Map<String, ReplayMark> replays(Set<String> topics) {
        Map<String, ReplayMark> marks = new HashMap<>();
        if (!topics.contains(Topics.DLQ_REPLAYS.name())) return marks;
        for (ConsumerRecord<byte[], byte[]> r : read(topics, Topics.DLQ_REPLAYS.name())) {
            String id = new String(r.key(), StandardCharsets.UTF_8);
            if (r.value() == null) {
                marks.remove(id);
                continue;
            }
            try {
                marks.put(id, JsonCodec.decode(r.value(), ReplayMark.class));
            } catch (JsonCodec.DecodeException e) {
                // an unreadable mark still says "replayed": never send twice because a mark was mangled
                marks.put(id, new ReplayMark(id, null, "?", null, Instant.ofEpochMilli(r.timestamp())));
            }
        }
        return marks;
    }

    /**
     * Every committed record of {@code topic}, from the beginning to the end offsets seen at start, without a consumer
     * group (assign + seek): reading commits nothing and disturbs no one.
     */
    private List<ConsumerRecord<byte[], byte[]>> read(Set<String> topics, String topic) {
        if (!topics.contains(topic)) return new ArrayList<>();
        Map<String, Object> p = new HashMap<>(kafka.clientOverrides());
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, "sqloop-dlq-reader");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        // replay marks are written transactionally: only committed ones count
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        p.remove(ConsumerConfig.GROUP_ID_CONFIG);
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (PartitionInfo info : consumer.partitionsFor(topic, timeout)) partitions.add(new TopicPartition(topic, info.partition()));
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, timeout);
            long lastProgress = System.nanoTime();
            while (!caughtUp(consumer, end)) {
                int before = records.size();
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
                if (records.size() > before) lastProgress = System.nanoTime();
                else if (System.nanoTime() - lastProgress > timeout.toNanos()) {
                    throw new Failed("reading " + topic + " made no progress for " + timeout.toSeconds() + " s (read " + records.size() + ")");
                }
            }
        } catch (org.apache.kafka.common.errors.TimeoutException e) {
            throw new Unreachable(e.getMessage());
        }
        // records written after the end offsets were taken may come with the last poll: kept, they are dead letters too
        records.sort(java.util.Comparator.<ConsumerRecord<byte[], byte[]>>comparingInt(ConsumerRecord::partition)
                .thenComparingLong(ConsumerRecord::offset));
        return records;
    }

    private static boolean caughtUp(KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> end) {
        for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
            if (consumer.position(e.getKey()) < e.getValue()) return false;
        }
        return true;
    }

    private static dev.sqloop.common.topic.Topics.Spec spec(String name) {
        return Topics.ALL.stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow();
    }

    // ---- formatting (pure)

    static String listHeader() {
        return String.format("%-7s %-20s %-18s %-17s %-26s %-14s %-8s %s",
                "OFFSET", "TIME", "STAGE", "REASON", "FROM", "QUESTION", "REPLAYED", "EXCEPTION");
    }

    /** One dead letter on one line. */
    static String line(DeadLetter d, ReplayMark mark) {
        return String.format("%-7s %-20s %-18s %-17s %-26s %-14s %-8s %s",
                d.id(), d.timestamp().truncatedTo(ChronoUnit.SECONDS), orDash(d.stage()), orDash(d.reason()), d.origin(),
                orDash(d.questionId()), mark == null ? "no" : "yes", shorten(exception(d), MESSAGE_CHARS));
    }

    /** {@code SimpleName: message} on one line. */
    static String exception(DeadLetter d) {
        String cls = d.exceptionClass() == null ? "" : d.exceptionClass().substring(d.exceptionClass().lastIndexOf('.') + 1);
        String message = d.exceptionMessage() == null ? "" : d.exceptionMessage();
        String text = cls.isEmpty() ? message : message.isEmpty() ? cls : cls + ": " + message;
        return Whitespace.collapse(text).trim();
    }

    /** Everything of one dead letter: where it came from, every header, key and value. */
    static String details(DeadLetter d, ReplayMark mark) {
        StringBuilder s = new StringBuilder();
        s.append("dead letter ").append(d.id()).append(" (dlq partition ").append(d.partition()).append(", offset ")
                .append(d.offset()).append(") at ").append(d.timestamp()).append('\n');
        s.append("  from      ").append(d.origin()).append('\n');
        s.append("  stage     ").append(orDash(d.stage())).append('\n');
        s.append("  reason    ").append(orDash(d.reason())).append('\n');
        s.append("  replayed  ").append(mark == null ? "no" : "yes, at " + mark.replayedAt() + " to " + mark.topic()).append('\n');
        s.append("headers\n");
        for (Header h : d.headers()) {
            String value = h.value() == null ? "(null)" : new String(h.value(), StandardCharsets.UTF_8);
            s.append("  ").append(h.key()).append(": ").append(shortenBlock(value, HEADER_CHARS)).append('\n');
        }
        s.append("key\n  ").append(d.key() == null ? "(null)" : new String(d.key(), StandardCharsets.UTF_8)).append('\n');
        if (d.value() == null) {
            s.append("value (null)\n");
        } else {
            s.append("value (").append(d.value().length).append(" bytes)\n");
            s.append(shortenBlock(new String(d.value(), StandardCharsets.UTF_8), VALUE_CHARS)).append('\n');
        }
        return s.toString();
    }

    /** {@code text} cut to {@code max} characters with an ellipsis. */
    static String shorten(String text, int max) {
        return text.length() <= max ? text : text.substring(0, max - 1) + "…";
    }

    /** Like {@link #shorten} but saying how much was left out. */
    static String shortenBlock(String text, int max) {
        return text.length() <= max ? text : text.substring(0, max) + "… (" + (text.length() - max) + " more characters not shown)";
    }

    private static String describeKey(DeadLetter d) {
        return d.key() == null ? "" : "  key " + shorten(new String(d.key(), StandardCharsets.UTF_8), 60);
    }

    private static String orDash(String s) {
        return s == null || s.isEmpty() ? "-" : s;
    }

    private static int positive(String option, int n) {
        if (n < 1) throw new Args.UsageException(option + " must be at least 1, was " + n);
        return n;
    }

    /** The brokers did not answer in time. */
    static final class Unreachable extends RuntimeException {
        Unreachable(String message) {
            super(message);
        }
    }

    /** The command cannot do what was asked (a dead letter that does not exist, a fenced replay…). */
    static final class Failed extends RuntimeException {
        Failed(String message) {
            super(message);
        }
    }
}
