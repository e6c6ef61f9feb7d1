package dev.ibex.bench.report;

import java.lang.management.ManagementFactory;

/**
 * CPU time used by this whole process (every thread, JIT and GC included), so a harness can report CPU per
 * operation next to wall time: on a shared machine under load, wall time follows what the others leave, while CPU
 * per operation says what each side costs.
 */
public final class ProcessCpu {
    private ProcessCpu() {
    }

    /** The process's CPU time in nanoseconds, or -1 where the JVM cannot tell. */
    public static long nanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
    }
}
