package dev.sqloop.architecture;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import dev.sqloop.architecture.violations.BenchUser;
import dev.sqloop.architecture.violations.MeteredStage;
import dev.sqloop.architecture.violations.TestkitUser;
import dev.sqloop.architecture.violations.cycle.down.Lower;
import dev.sqloop.architecture.violations.cycle.up.Upper;
import org.junit.jupiter.api.Test;

/** The rules are not vacuous: each fails on a class that breaks it (fixtures under {@code violations}). */
class RulesCatchViolationsTest {
    @Test
    void shouldRefuseAStageThatTakesAMicrometerType() {
        JavaClasses bad = new ClassFileImporter().importClasses(MeteredStage.class);
        AssertionError error = assertThrows(AssertionError.class, () -> ArchitectureTest.stagesArePure().check(bad));
        assertTrue(error.getMessage().contains("MeteredStage") && error.getMessage().contains("io.micrometer"), error.getMessage());
    }

    @Test
    void shouldRefuseProductionCodeThatStartsAnEmbeddedBroker() {
        JavaClasses bad = new ClassFileImporter().importClasses(TestkitUser.class);
        AssertionError error = assertThrows(AssertionError.class,
                () -> ArchitectureTest.productionNeverUsesTestInfrastructure().check(bad));
        assertTrue(error.getMessage().contains("dev.sqloop.testkit"), error.getMessage());
    }

    @Test
    void shouldRefuseCodeOutsideTheLabThatUsesABenchmark() {
        JavaClasses bad = new ClassFileImporter().importClasses(BenchUser.class);
        AssertionError error = assertThrows(AssertionError.class, () -> ArchitectureTest.nothingDependsOnTheLab().check(bad));
        assertTrue(error.getMessage().contains("BenchUser") && error.getMessage().contains("dev.sqloop.lab.MachineSpeed"), error.getMessage());
    }

    @Test
    void shouldRefuseTwoPackagesThatUseEachOther() {
        JavaClasses bad = new ClassFileImporter().importClasses(Upper.class, Lower.class);
        AssertionError error = assertThrows(AssertionError.class, () -> ArchitectureTest.packagesAreFreeOfCycles().check(bad));
        assertTrue(error.getMessage().contains("Cycle detected") && error.getMessage().contains("violations.cycle.up"), error.getMessage());
    }
}
