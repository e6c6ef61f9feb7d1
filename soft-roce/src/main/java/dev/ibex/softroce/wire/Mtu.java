package dev.ibex.softroce.wire;

/** The InfiniBand path MTU enumeration ({@code enum ib_mtu}): payload bytes per packet. */
public enum Mtu {
    MTU_256(1, 256), MTU_512(2, 512), MTU_1024(3, 1024), MTU_2048(4, 2048), MTU_4096(5, 4096);

    /**
     * Bytes a netdev MTU must leave for RoCE headers in the RDMA CM's {@code iboe_get_mtu}: GRH 40,
     * UDP 8, BTH 12, XRC 4, AtomicETH 28, ICRC 4.
     */
    public static final int ROCE_OVERHEAD = 96;

    private final int code;
    private final int bytes;

    Mtu(int code, int bytes) {
        this.code = code;
        this.bytes = bytes;
    }

    /** The 4-bit enum value carried in CM messages and QP attributes. */
    public int code() {
        return code;
    }

    /** Payload bytes per packet. */
    public int bytes() {
        return bytes;
    }

    /** The MTU with this enum value, or {@code null} (0 and 6–15 are not MTUs). */
    public static Mtu ofCode(int code) {
        return code >= 1 && code <= 5 ? values()[code - 1] : null;
    }

    /**
     * The path MTU the RDMA CM uses on a netdev with MTU {@code netdevMtu} ({@code iboe_get_mtu}): the
     * largest IB MTU not above {@code netdevMtu - 96}; 1500 → 1024, 9000 → 4096, 65536 (lo) → 4096.
     *
     * @throws IllegalArgumentException if the netdev MTU leaves less than 256 payload bytes
     */
    public static Mtu fromNetdevMtu(int netdevMtu) {
        int room = netdevMtu - ROCE_OVERHEAD;
        for (int i = MTU_4096.ordinal(); i >= 0; i--) {
            Mtu m = values()[i];
            if (room >= m.bytes) {
                return m;
            }
        }
        throw new IllegalArgumentException("netdev MTU " + netdevMtu + " is too small for RoCE: it needs at least "
                + (MTU_256.bytes + ROCE_OVERHEAD));
    }
}
