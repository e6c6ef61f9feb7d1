package dev.ibex.softroce.transport;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Field;
import org.junit.jupiter.api.Test;

/**
 * This module's tests run with {@code --sun-misc-unsafe-memory-access=deny} (its pom), so any use of
 * {@code sun.misc.Unsafe}'s memory access by the module or what it depends on fails them. This checks the flag is
 * really in force: without it the other tests would prove nothing.
 */
class UnsafeDeniedTest {
    @Test
    void unsafeMemoryAccessIsDeniedInThisTestJvm() throws Exception {
        Field f = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
        f.setAccessible(true);
        sun.misc.Unsafe unsafe = (sun.misc.Unsafe) f.get(null);
        assertThatThrownBy(() -> unsafe.allocateMemory(8)).isInstanceOf(UnsupportedOperationException.class);
    }
}
