package dev.ibex.it.vm;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * Marks a test class that needs a real kernel RDMA stack and therefore runs only inside the Soft-RoCE VM
 * ({@code lab/rxe-vm-tests}, tier 4): it carries the JUnit tag {@value #TAG}, which surefire excludes on
 * the host and the VM's console launcher includes. Inside the VM, {@link SoftRoceVm#current()} describes
 * the devices and addresses.
 */
@Documented
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag(VmTest.TAG)
public @interface VmTest {
    /** The JUnit tag of the VM tier. */
    String TAG = "vm";
}
