package dev.sqloop.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ./sqloop run SERVICE}: one service alone, for real deployments: the same Main its container runs. */
@Command(name = "run",
        description = {"Run one service alone, configured by SQLOOP_* environment variables (what its container runs).",
            "",
            "generator (generate + repair; SQLOOP_GENERATOR_WORKERS narrows) | repair (the repair worker alone) | validator |",
            "executor | fewshot | gateway. Each serves /metrics, /healthy and /ready on its management port (cli/README.md)."})
final class RunCommand implements Callable<Integer> {
    enum Service { generator, repair, validator, executor, fewshot, gateway }

    @Parameters(index = "0", paramLabel = "SERVICE", description = "one of: ${COMPLETION-CANDIDATES}")
    Service service;

    @Parameters(index = "1..*", paramLabel = "ARG", description = "passed to the service's Main")
    List<String> rest = new ArrayList<>();

    @Option(names = "--print-classpath", description = "print the classpath the service runs on, one entry a line, and exit")
    boolean printClasspath;

    @Override
    public Integer call() throws Exception {
        if (printClasspath) {
            // the classpath of this very JVM: what the service would run on
            for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) System.out.println(entry);
            return Main.OK;
        }
        String[] args = rest.toArray(String[]::new);
        switch (service) {
            case generator -> dev.sqloop.generator.Main.main(args);
            case repair -> dev.sqloop.generator.Main.main(new String[] {"repair"});
            case validator -> dev.sqloop.validator.Main.main(args);
            case executor -> dev.sqloop.executor.Main.main(args);
            case fewshot -> dev.sqloop.fewshot.Main.main(args);
            case gateway -> dev.sqloop.gateway.Main.main(args);
        }
        return Main.OK;
    }
}
