package dev.ibex.cm.spi;

/** {@code enum rdma_port_space}. */
public enum PortSpace {
    /** Reliable connected: RC QPs, REQ/REP/RTU. Private data limit 56 on connect. */
    TCP(0x0106, QpType.RC),
    /** Unreliable datagram: UD QPs, SIDR, multicast. Private data limit 180 on connect. */
    UDP(0x0111, QpType.UD),
    /** Native IB port space (RC or UD). */
    IB(0x013F, QpType.RC),
    /** IPoIB port space (UD). */
    IPOIB(0x0002, QpType.UD);

    private final int code;
    private final QpType qpType;

    PortSpace(int code, QpType qpType) {
        this.code = code;
        this.qpType = qpType;
    }

    public int code() {
        return code;
    }

    /** {@return the QP type ids of this space use by default} */
    public QpType qpType() {
        return qpType;
    }

    /** The IB CM service ID of {@code port} in this space: {@code (ps << 16) + port}. */
    public long serviceId(int port) {
        return ((long) code << 16) + (port & 0xFFFF);
    }

    public static PortSpace ofCode(int code) {
        for (PortSpace p : values()) {
            if (p.code == code) {
                return p;
            }
        }
        throw new IllegalArgumentException("unknown port space 0x" + Integer.toHexString(code));
    }
}
