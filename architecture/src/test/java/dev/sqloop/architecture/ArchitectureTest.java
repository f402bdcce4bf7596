package dev.sqloop.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import dev.sqloop.common.runtime.Stage;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The layering the README promises, over every module's production classes (tests excluded): a service never
 * reaches into another service, production code never into the test infrastructure or the benchmarks, a stage never
 * into Kafka or Micrometer, and no two packages depend on each other. A violation fails {@code ./sqloop test} with the
 * offending class and dependency named.
 */
class ArchitectureTest {
    /** Service modules by package: each may use common and the example store, never another one of these. */
    static final List<String> SERVICES = List.of("fewshot", "generator", "validator", "executor", "gateway");

    private static JavaClasses production;

    @BeforeAll
    static void importProductionClasses() {
        // Under "mvn verify" the modules arrive as jars, under "mvn test" as class folders: import both, tests excluded.
        production = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.sqloop");
    }

    @Test
    void shouldSeeTheProductionClassesOfEveryModule() {
        // the rules below are only as good as what they see: an empty import would pass them all
        for (String module : List.of("common", "store", "parse", "fewshot", "generator", "validator", "executor", "gateway",
                "cli", "embedded", "testkit", "lab")) {
            long count = production.stream().filter(c -> c.getPackageName().startsWith("dev.sqloop." + module)).count();
            org.junit.jupiter.api.Assertions.assertTrue(count >= 3, module + ": " + count + " classes imported");
        }
        org.junit.jupiter.api.Assertions.assertTrue(production.stream().noneMatch(c -> c.getSimpleName().endsWith("Test")
                || c.getSimpleName().endsWith("IT")), "test classes are not production");
    }

    static List<ArchRule> serviceRules() {
        List<ArchRule> rules = new ArrayList<>();
        for (String service : SERVICES) {
            String[] others = Stream.concat(SERVICES.stream().filter(s -> !s.equals(service)), Stream.of("cli", "embedded", "lab"))
                    .map(s -> "dev.sqloop." + s + "..").toArray(String[]::new);
            rules.add(noClasses().that().resideInAPackage("dev.sqloop." + service + "..")
                    .should().dependOnClassesThat().resideInAnyPackage(others)
                    .because("services talk only through topics; shared code lives in common, example-store or sql-parse"));
        }
        return rules;
    }

    static ArchRule sharedModulesStayBelowServices() {
        String[] above = Stream.concat(SERVICES.stream(), Stream.of("cli", "embedded", "testkit", "lab"))
                .map(s -> "dev.sqloop." + s + "..").toArray(String[]::new);
        return noClasses().that().resideInAnyPackage("dev.sqloop.common..", "dev.sqloop.store..", "dev.sqloop.parse..")
                .should().dependOnClassesThat().resideInAnyPackage(above)
                .because("common, example-store and sql-parse are libraries the services use");
    }

    static ArchRule productionNeverUsesTestInfrastructure() {
        return noClasses().that().resideOutsideOfPackages("dev.sqloop.testkit..", "dev.sqloop.embedded..", "dev.sqloop.lab..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.sqloop.testkit..", "dev.sqloop.embedded..",
                        "kafka.server..", "org.apache.kafka.server..", "org.apache.kafka.raft..")
                .because("a deployed service must not carry the embedded broker, engine launchers or the simulated LLM");
    }

    /** The benchmarks are a laboratory beside the product: they use it, nothing uses them (LabDependencyTest: the poms). */
    static ArchRule nothingDependsOnTheLab() {
        return noClasses().that().resideOutsideOfPackage("dev.sqloop.lab..")
                .should().dependOnClassesThat().resideInAPackage("dev.sqloop.lab..")
                .because("the lab module holds the benchmarks; the product, the demo and the tests' infrastructure must run without it");
    }

    /**
     * Every package of every module is a slice, sub-packages apart ({@code common.config} and {@code common.runtime}
     * are two): no cycle among them, so each package can be read, tested and moved knowing only what is below it.
     * (Modules cannot form cycles: Maven refuses them. Inside one they could, and did: config, runtime and metrics
     * in common; fewshot and its schema package; {@code common.Topics} beside the messages it names, now in
     * {@code common.topic}; {@code embedded.Main} naming the {@code eval} command while {@code embedded.eval} ran the
     * pipeline then beside Main, now in {@code embedded.pipeline}.)
     */
    static ArchRule packagesAreFreeOfCycles() {
        return slices().matching("dev.sqloop.(**)").should().beFreeOfCycles();
    }

    static ArchRule stagesArePure() {
        return noClasses().that().implement(Stage.class)
                .should().dependOnClassesThat().resideInAnyPackage("org.apache.kafka..", "io.micrometer..")
                .because("a stage is a pure function of its message; the runner owns Kafka and metrics (STYLE.md)");
    }

    @Test
    void shouldKeepServicesApart() {
        serviceRules().forEach(rule -> rule.check(production));
    }

    @Test
    void shouldKeepCommonAndExampleStoreBelowTheServices() {
        sharedModulesStayBelowServices().check(production);
    }

    @Test
    void shouldKeepTestInfrastructureOutOfProduction() {
        productionNeverUsesTestInfrastructure().check(production);
    }

    @Test
    void shouldKeepTheProductOffTheLab() {
        nothingDependsOnTheLab().check(production);
    }

    @Test
    void shouldKeepPackagesFreeOfCycles() {
        packagesAreFreeOfCycles().check(production);
    }

    @Test
    void shouldKeepStagesFreeOfKafkaAndMicrometer() {
        stagesArePure().check(production);
    }
}
