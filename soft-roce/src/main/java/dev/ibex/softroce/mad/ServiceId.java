package dev.ibex.softroce.mad;

/**
 * RDMA CM service IDs: {@code (portSpace << 16) + port} ({@code rdma_get_service_id}), e.g.
 * {@code 0x0000000001061D2F} for RDMA_PS_TCP port 7471. The 40-bit prefix {@code 0x0000000001} marks
 * an "RDMA IP CM service" (IBTA annex A11), which tshark decodes as prefix, protocol and port.
 */
public final class ServiceId {
    /** Mask of the port-space part ({@code RDMA_IB_IP_PS_MASK}). */
    public static final long PORT_SPACE_MASK = 0xFFFF_FFFF_FFFF_0000L;
    private static final long IP_CM_PREFIX_MASK = 0xFFFF_FFFF_FF00_0000L;
    private static final long IP_CM_PREFIX = 0x0000_0000_0100_0000L;

    private ServiceId() {
    }

    /** The service ID of {@code port} (0–65535) in {@code portSpace}. */
    public static long of(PortSpace portSpace, int port) {
        Fields.bits(port, 16, "port");
        return ((long) portSpace.value() << 16) + port;
    }

    /** The port space of an RDMA CM service ID, or {@code null} if it is not one. */
    public static PortSpace portSpace(long serviceId) {
        if ((serviceId & 0xFFFF_FFFF_0000_0000L) != 0) {
            return null;
        }
        return PortSpace.of((int) (serviceId >>> 16));
    }

    /** The port (low 16 bits). */
    public static int port(long serviceId) {
        return (int) (serviceId & 0xFFFF);
    }

    /** Whether the ID carries the annex-A11 "RDMA IP CM" prefix (TCP and UDP port spaces have it, IB too). */
    public static boolean isIpCm(long serviceId) {
        return (serviceId & IP_CM_PREFIX_MASK) == IP_CM_PREFIX;
    }

    /** Hex text with the decoded port space, e.g. {@code 0x0000000001061d2f (RDMA_PS_TCP:7471)}. */
    public static String describe(long serviceId) {
        String hex = String.format("0x%016x", serviceId);
        PortSpace ps = portSpace(serviceId);
        return ps == null ? hex : hex + " (" + ps.cName() + ":" + port(serviceId) + ")";
    }
}
