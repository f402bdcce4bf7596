package dev.sqloop.executor;

import dev.sqloop.common.config.ConfigException;
import dev.sqloop.common.config.EnvConfig;
import dev.sqloop.common.config.KafkaSettings;
import dev.sqloop.common.datasource.Datasources;
import dev.sqloop.common.runtime.RunnerConfig;
import dev.sqloop.common.runtime.RunnerSettings;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * The executor service's settings: Kafka, the runner, the datasources it may run on and those whose empty answers get a
 * repair round ({@code SQLOOP_DATASOURCE_<NAME>_EMPTY_ANSWER_REPAIR}, default false) and those whose candidates' ties go to
 * a pairwise LLM comparison ({@code SQLOOP_DATASOURCE_<NAME>_TIE_BREAK}, default false). The management port is
 * read by {@code ServiceHost} ({@code SQLOOP_MANAGEMENT_PORT}, default 9404).
 */
public record ExecutorConfig(KafkaSettings kafka, RunnerSettings runner, Datasources datasources, Set<String> emptyAnswerRepair,
                             Set<String> tieBreak) {

    public ExecutorConfig {
        emptyAnswerRepair = Set.copyOf(emptyAnswerRepair);
        tieBreak = Set.copyOf(tieBreak);
    }

    public static ExecutorConfig fromEnv(EnvConfig env) {
        Datasources datasources = Datasources.fromEnv(env);
        if (datasources.isEmpty()) {
            throw new ConfigException(Datasources.PREFIX + "<NAME>_URL and _DIALECT are required for at least one datasource");
        }
        // off by default: a repair round costs an LLM call, and an empty answer may be the right one
        Set<String> repair = new TreeSet<>();
        for (String name : datasources.names()) {
            if (env.bool(Datasources.PREFIX + name.toUpperCase(Locale.ROOT) + Datasources.EMPTY_ANSWER_REPAIR, false)) repair.add(name);
        }
        // off by default too: a tie-break costs one LLM call per pair compared
        Set<String> tieBreak = new TreeSet<>();
        for (String name : datasources.names()) {
            if (env.bool(Datasources.PREFIX + name.toUpperCase(Locale.ROOT) + Datasources.TIE_BREAK, false)) tieBreak.add(name);
        }
        return new ExecutorConfig(KafkaSettings.fromEnv(env), RunnerConfig.fromEnv(env, ExecuteStage.NAME), datasources, repair, tieBreak);
    }
}
