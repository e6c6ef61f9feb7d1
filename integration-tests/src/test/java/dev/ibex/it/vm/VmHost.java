package dev.ibex.it.vm;

/**
 * One emulated host of the VM's multi-host layout ({@code lab/guest/netns-hosts}): two links, one on each
 * fabric (subnet 10.77.1.0/24 and 10.77.2.0/24), each with its own rxe device, and the switch ports
 * (in the namespace {@link SoftRoceVm#switchNetns()}) that a test can take down to cut a path.
 *
 * @param name    a, b, …
 * @param address the IPv4 address on fabric 1; bind rdma_cm ids to it to act as this host
 * @param address2 the IPv4 address on fabric 2 (the second path)
 * @param device  the rxe device on fabric 1
 * @param device2 the rxe device on fabric 2
 * @param switchPort  the switch port of the fabric 1 link
 * @param switchPort2 the switch port of the fabric 2 link
 */
public record VmHost(String name, String address, String address2, String device, String device2,
        String switchPort, String switchPort2) {
}
