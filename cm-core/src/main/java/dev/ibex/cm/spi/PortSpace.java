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

    /** {@return the {@code enum rdma_port_space} value} */
    public int code() {
        return code;
    }

    /** {@return the QP type ids of this space use by default} */
    public QpType qpType() {
        return qpType;
    }

    /**
     * The IB CM service ID of {@code port} in this space: {@code (ps << 16) + port}.
     *
     * @param port the port number (16 bits are used)
     * @return the service ID
     */
    public long serviceId(int port) {
        return ((long) code << 16) + (port & 0xFFFF);
    }

    /**
     * The constant for a port space value.
     *
     * @param code an {@code enum rdma_port_space} value
     * @return its constant
     * @throws IllegalArgumentException for a value this table does not know
     */
    public static PortSpace ofCode(int code) {
        for (PortSpace p : values()) {
            if (p.code == code) {
                return p;
            }
        }
        throw new IllegalArgumentException("unknown port space 0x" + Integer.toHexString(code));
    }
}
