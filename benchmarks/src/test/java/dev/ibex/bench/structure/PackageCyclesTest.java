package dev.ibex.bench.structure;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Ibex's packages form layers: no package depends, directly or through others, on a package that depends on it — in
 * any module (benchmarks comes last in the build, so every module's main classes are on its test class path).
 * A cycle is the first sign of a concept split across packages (soft-roce's verbs objects and transport were one
 * such; docs/architecture.md).
 */
class PackageCyclesTest {
    /** A package of each module: the check must see them all, or it would pass by seeing nothing. */
    private static final Set<String> MODULES = Set.of("dev.ibex.cm.endpoint", "dev.ibex.cm.fake", "dev.ibex.verbs.ffi",
            "dev.ibex.softroce.transport", "dev.ibex.cm.reactive", "dev.ibex.rsocket", "dev.ibex.pubsub",
            "dev.ibex.micrometer", "dev.ibex.samples", "dev.ibex.bench.callback");

    private static final JavaClasses IBEX = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.ibex");

    @Test
    void everyModulesClassesAreSeen() {
        Set<String> packages = IBEX.stream().map(JavaClass::getPackageName).collect(Collectors.toSet());
        assertThat(packages).containsAll(MODULES);
    }

    @Test
    void noPackageCycleInAnyModule() {
        // one slice per package (dev.ibex.softroce and dev.ibex.softroce.transport are two)
        slices().matching("dev.ibex.(**)").should().beFreeOfCycles().check(IBEX);
    }
}
