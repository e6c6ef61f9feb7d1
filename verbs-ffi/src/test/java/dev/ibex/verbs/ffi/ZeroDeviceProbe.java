package dev.ibex.verbs.ffi;

import dev.ibex.cm.RdmaException;
import java.lang.foreign.MemorySegment;

/**
 * Run in a child JVM by {@link NoDeviceTest} with {@code SYSFS_PATH} pointing at a fake, empty sysfs:
 * libibverbs reads that variable once per process, so the zero-device case needs its own process.
 * Prints {@code key=value} lines for the parent to check.
 */
public final class ZeroDeviceProbe {
    private ZeroDeviceProbe() {
    }

    public static void main(String[] args) {
        RdmaAvailability a = RdmaAvailability.probe();
        System.out.println("deviceCount=" + a.deviceCount());
        System.out.println("usable=" + a.usable());
        System.out.println("reason=" + a.reason());
        MemorySegment list = Devices.getDeviceList();
        System.out.println("listNull=" + (list.address() == 0));
        System.out.println("listEntries=" + list.byteSize() / 8);
        Devices.freeDeviceList(list);
        try {
            RdmaCm.destroyEventChannel(RdmaCm.createEventChannel());
            System.out.println("cm=ok");
        } catch (RdmaException e) {
            System.out.println("cm=" + e.errno());
        }
        System.out.println("done=true");
    }
}
