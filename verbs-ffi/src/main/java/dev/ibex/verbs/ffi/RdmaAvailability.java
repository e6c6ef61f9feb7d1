package dev.ibex.verbs.ffi;

import dev.ibex.cm.RdmaException;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * What this machine offers to the rdma-core provider, found without throwing: whether the libraries
 * load, which verbs devices exist and whether the RDMA CM can be opened.
 *
 * @param librariesPresent libibverbs and librdmacm both load
 * @param deviceCount number of verbs devices ({@code ibv_get_device_list}); 0 when none or unknown
 * @param devices their names
 * @param connectionManager {@code rdma_create_event_channel} succeeds
 * @param reason when not {@link #usable()}: why, and what to do (the same sentence the failing call's
 *     {@link RdmaException} carries); otherwise a one-line summary
 */
public record RdmaAvailability(boolean librariesPresent, int deviceCount, List<String> devices,
        boolean connectionManager, String reason) {

    public RdmaAvailability {
        devices = List.copyOf(devices);
    }

    /** Whether the rdma-core provider can run: libraries, at least one device and the CM. */
    public boolean usable() {
        return librariesPresent && deviceCount > 0 && connectionManager;
    }

    /**
     * Probes the libraries, the device list and the CM. Opens nothing that outlives the call (the event
     * channel it creates is destroyed at once) and never throws.
     */
    public static RdmaAvailability probe() {
        NativeLibrary verbs = Libraries.ibverbs();
        NativeLibrary cm = Libraries.rdmacm();
        if (!verbs.isAvailable() || !cm.isAvailable()) {
            String why = verbs.unavailableReason().orElseGet(() -> cm.unavailableReason().orElse("unknown"));
            return new RdmaAvailability(false, 0, List.of(), false, why);
        }
        List<String> names = new ArrayList<>();
        try {
            MemorySegment list = Devices.getDeviceList();
            try {
                for (int i = 0; i < list.byteSize() / 8; i++) {
                    names.add(Devices.getDeviceName(Devices.device(list, i)));
                }
            } finally {
                Devices.freeDeviceList(list);
            }
        } catch (RdmaException e) {
            return new RdmaAvailability(true, 0, List.of(), false, reasonOf(e));
        } catch (RuntimeException e) {
            return new RdmaAvailability(true, 0, List.of(), false, "ibv_get_device_list failed: " + e);
        }
        if (names.isEmpty()) {
            return new RdmaAvailability(true, 0, List.of(), false, RdmaErrors.ZERO_DEVICES);
        }
        try {
            MemorySegment channel = RdmaCm.createEventChannel();
            RdmaCm.destroyEventChannel(channel);
        } catch (RdmaException e) {
            return new RdmaAvailability(true, names.size(), names, false, reasonOf(e));
        } catch (RuntimeException e) {
            return new RdmaAvailability(true, names.size(), names, false, "rdma_create_event_channel failed: " + e);
        }
        return new RdmaAvailability(true, names.size(), names, true,
                names.size() + " RDMA device(s): " + String.join(", ", names));
    }

    private static String reasonOf(RdmaException e) {
        return e.getMessage();
    }
}
