package dev.ibex.it.interop;

import dev.ibex.it.vm.GuestCommand;
import dev.ibex.it.vm.SoftRoceVm;
import java.time.Duration;

/**
 * A port of the VM's switch (a bridge in the switch namespace): its transmit counter proves that traffic between
 * two emulated hosts really crossed the wire rather than the kernel's loopback.
 */
public final class SwitchPort {
    private final String netns;
    private final String port;

    public SwitchPort(SoftRoceVm vm, String port) {
        this.netns = vm.switchNetns();
        this.port = port;
    }

    /** Packets the bridge has sent out of this port (towards its host). */
    public long txPackets() {
        GuestCommand c = GuestCommand.run(Duration.ofSeconds(20), "ip", "netns", "exec", netns, "cat",
                "/sys/class/net/" + port + "/statistics/tx_packets");
        if (c.exitCode() != 0) {
            throw new IllegalStateException("cannot read the counters of " + port + " in " + netns + ": " + c.output());
        }
        return Long.parseLong(c.output().strip());
    }

    @Override
    public String toString() {
        return netns + "/" + port;
    }
}
