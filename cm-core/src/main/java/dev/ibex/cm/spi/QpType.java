package dev.ibex.cm.spi;

/** {@code enum ibv_qp_type} (the transports Ibex supports). */
public enum QpType {
    /** {@code IBV_QPT_RC}: reliable connected: ordered, acknowledged, RDMA and atomics. */
    RC(2),
    /** {@code IBV_QPT_UC}: unreliable connected: no acknowledgements, no RDMA READ or atomics. */
    UC(3),
    /** {@code IBV_QPT_UD}: unreliable datagram: one QP talks to many, messages up to the path MTU. */
    UD(4);

    private final int code;

    QpType(int code) {
        this.code = code;
    }

    /** {@return the {@code enum ibv_qp_type} value} */
    public int code() {
        return code;
    }

    /**
     * The constant for a QP type value.
     *
     * @param code an {@code enum ibv_qp_type} value
     * @return its constant
     * @throws IllegalArgumentException for a type Ibex does not support
     */
    public static QpType ofCode(int code) {
        for (QpType t : values()) {
            if (t.code == code) {
                return t;
            }
        }
        throw new IllegalArgumentException("unsupported QP type " + code);
    }
}
