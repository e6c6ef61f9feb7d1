package dev.ibex.bench.structure;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaCall;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.lang.foreign.Linker;
import org.junit.jupiter.api.Test;

/**
 * The rdma-core provider never makes native code call into Java (issue 18: "no upcall on the data path"): no class of
 * {@code dev.ibex.verbs} creates an upcall stub, so no path — data, CM or async events — pays a native-to-Java
 * transition; events are read from file descriptors the loop polls instead of delivered by callbacks.
 */
class NoUpcallTest {
    private static final JavaClasses VERBS = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.ibex.verbs");

    /** What the rule must catch (never run). */
    @SuppressWarnings("restricted")
    static final class Upcaller {
        static java.lang.foreign.MemorySegment stub(java.lang.invoke.MethodHandle target) {
            return Linker.nativeLinker().upcallStub(target, java.lang.foreign.FunctionDescriptor.ofVoid(),
                    java.lang.foreign.Arena.global());
        }
    }

    private static final DescribedPredicate<JavaCall<?>> UPCALL_STUB =
            new DescribedPredicate<>("Linker.upcallStub") {
                @Override
                public boolean test(JavaCall<?> call) {
                    return call.getTarget().getName().equals("upcallStub")
                            && call.getTarget().getOwner().isAssignableTo(Linker.class);
                }
            };

    @Test
    void theRuleSeesAnUpcallStub() {
        JavaClasses upcaller = new ClassFileImporter().importClasses(Upcaller.class);
        assertThatThrownBy(() -> noClasses().should().callMethodWhere(UPCALL_STUB).check(upcaller))
                .isInstanceOf(AssertionError.class).hasMessageContaining("upcallStub");
    }

    @Test
    void theRdmaCoreProviderMakesNoUpcallStub() {
        // an empty selection fails the rule (ArchUnit's failOnEmptyShould): it cannot pass by seeing nothing
        noClasses().that().resideInAPackage("dev.ibex.verbs..").should().callMethodWhere(UPCALL_STUB).check(VERBS);
    }
}
