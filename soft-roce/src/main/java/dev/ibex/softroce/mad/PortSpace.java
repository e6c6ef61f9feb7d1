package dev.ibex.softroce.mad;

/**
 * RDMA CM port spaces ({@code enum rdma_ucm_port_space}). The port space and the port make the IB service
 * ID; the QP type decides whether the CM speaks REQ/REP/RTU (RC) or SIDR (UD).
 */
public enum PortSpace {
    /** {@code RDMA_PS_IPOIB}: UD, Q_Key from the IPoIB broadcast group. */
    IPOIB(0x0002, true),
    /** {@code RDMA_PS_TCP}: RC. */
    TCP(0x0106, false),
    /** {@code RDMA_PS_UDP}: UD, Q_Key 0x01234567. */
    UDP(0x0111, true),
    /** {@code RDMA_PS_IB}: RC or UD by QP type (RC assumed by the limit helpers). */
    IB(0x013F, false);

    private final int value;
    private final boolean datagram;

    PortSpace(int value, boolean datagram) {
        this.value = value;
        this.datagram = datagram;
    }

    /** The 16-bit port-space number. */
    public int value() {
        return value;
    }

    /** Whether ids in this port space use UD QPs and SIDR. */
    public boolean isDatagram() {
        return datagram;
    }

    /** The C name, e.g. {@code RDMA_PS_TCP}. */
    public String cName() {
        return "RDMA_PS_" + name();
    }

    /** The port space with this number, or {@code null}. */
    public static PortSpace of(int value) {
        for (PortSpace ps : values()) {
            if (ps.value == value) {
                return ps;
            }
        }
        return null;
    }
}
