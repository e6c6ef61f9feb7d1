package dev.ibex.it.vm;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What {@code lab/rxe-vm} set up in the VM, read from the environment it passes to the command.
 *
 * @param address    the IPv4 address of {@code rxe0}'s netdev (dummy0, link-local)
 * @param device     the single-host rxe device, {@code rxe0}
 * @param hosts      the emulated hosts of {@code --hosts 2} (empty without it)
 * @param switchNetns the network namespace holding the bridges that join the hosts
 */
public record SoftRoceVm(String address, String device, List<VmHost> hosts, String switchNetns) {

    public SoftRoceVm {
        hosts = List.copyOf(hosts);
    }

    /**
     * Reads the VM description.
     *
     * @throws IllegalStateException outside the VM, saying how to run the test
     */
    public static SoftRoceVm current() {
        return from(System.getenv());
    }

    static SoftRoceVm from(Map<String, String> env) {
        if (!"1".equals(env.get("IBEX_VM"))) {
            throw new IllegalStateException("this test needs the Soft-RoCE VM (a kernel with rdma_rxe): "
                    + "run it with lab/rxe-vm-tests, or lab/rxe-vm -- <command>; see lab/README.md");
        }
        List<VmHost> hosts = new ArrayList<>();
        for (String name : env.getOrDefault("IBEX_HOSTS", "").trim().split("\\s+")) {
            if (name.isEmpty()) {
                continue;
            }
            String p = "IBEX_HOST_" + name.toUpperCase(Locale.ROOT) + "_";
            hosts.add(new VmHost(name, require(env, p + "ADDR"), require(env, p + "ADDR2"), require(env, p + "DEV"),
                    require(env, p + "DEV2"), require(env, p + "SWPORT"), require(env, p + "SWPORT2")));
        }
        return new SoftRoceVm(require(env, "IBEX_VM_ADDR"), require(env, "IBEX_VM_DEV"), hosts,
                env.getOrDefault("IBEX_SWITCH_NETNS", ""));
    }

    private static String require(Map<String, String> env, String name) {
        String v = env.get(name);
        if (v == null || v.isBlank()) {
            throw new IllegalStateException(name + " is not set: the VM was not set up by lab/rxe-vm");
        }
        return v;
    }

    /** The IPv4-mapped GID of an IPv4 address as sysfs prints it ({@code 0000:…:ffff:a9fe:4d01}). */
    public static String ipv4Gid(String ipv4) {
        String[] o = ipv4.split("\\.");
        if (o.length != 4) {
            throw new IllegalArgumentException("not an IPv4 address: " + ipv4);
        }
        int[] b = new int[4];
        for (int i = 0; i < 4; i++) {
            b[i] = Integer.parseInt(o[i]);
        }
        return String.format(Locale.ROOT, "0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x", b[0], b[1], b[2], b[3]);
    }
}
