package dev.ibex.softroce;

import dev.ibex.cm.spi.ProviderConfig;
import dev.ibex.softroce.net.FaultInjector;
import java.time.Duration;

/**
 * The {@code ibex.softroce.fault.*} settings, applied to a fabric's {@link FaultInjector} when it opens (on the
 * sending side of every link). Tests usually configure {@link SoftFabric#faults()} directly instead.
 */
final class FaultSettings {
    /** Seed of the fault generators (default 0), so a run repeats. */
    static final String SEED = SoftRoceConfig.FAULT_PREFIX + "seed";
    /** Probability that a datagram is dropped. */
    static final String DROP = SoftRoceConfig.FAULT_PREFIX + "drop";
    /** Probability that a datagram is held back and overtaken (reordered). */
    static final String REORDER = SoftRoceConfig.FAULT_PREFIX + "reorder";
    /** Longest a reordered datagram is held, in microseconds (default 1000). */
    static final String REORDER_HOLD_MICROS = SoftRoceConfig.FAULT_PREFIX + "reorderHoldMicros";
    /** Probability that a datagram is sent twice. */
    static final String DUPLICATE = SoftRoceConfig.FAULT_PREFIX + "duplicate";
    /** A file whose appended lines are {@link FaultCommands} applied at run time (watched by the fabric). */
    static final String CONTROL = SoftRoceConfig.FAULT_PREFIX + "control";
    /** Delay added to every datagram, in microseconds. */
    static final String DELAY_MICROS = SoftRoceConfig.FAULT_PREFIX + "delayMicros";

    private FaultSettings() {}

    static FaultInjector apply(ProviderConfig c, FaultInjector faults) {
        double drop = Double.parseDouble(c.get(DROP, "0"));
        double reorder = Double.parseDouble(c.get(REORDER, "0"));
        double duplicate = Double.parseDouble(c.get(DUPLICATE, "0"));
        long hold = c.getLong(REORDER_HOLD_MICROS, 1000);
        long delay = c.getLong(DELAY_MICROS, 0);
        if (drop > 0) {
            faults.onSend().drop(drop);
        }
        if (reorder > 0) {
            faults.onSend().reorder(reorder, Duration.ofNanos(hold * 1000));
        }
        if (duplicate > 0) {
            faults.onSend().duplicate(duplicate);
        }
        if (delay > 0) {
            faults.onSend().delay(Duration.ofNanos(delay * 1000));
        }
        return faults;
    }
}
