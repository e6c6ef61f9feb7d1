package dev.ibex.cm.spi;

/** {@code enum ibv_mtu}: the IB path MTU. */
public enum Mtu {
    /** {@code IBV_MTU_256}: 256 bytes (code 1). */
    MTU_256(1, 256),
    /** {@code IBV_MTU_512}: 512 bytes (code 2). */
    MTU_512(2, 512),
    /** {@code IBV_MTU_1024}: 1024 bytes (code 3). */
    MTU_1024(3, 1024),
    /** {@code IBV_MTU_2048}: 2048 bytes (code 4). */
    MTU_2048(4, 2048),
    /** {@code IBV_MTU_4096}: 4096 bytes (code 5). */
    MTU_4096(5, 4096);

    private final int code;
    private final int bytes;

    Mtu(int code, int bytes) {
        this.code = code;
        this.bytes = bytes;
    }

    /** {@return the {@code enum ibv_mtu} value, 1 to 5} */
    public int code() {
        return code;
    }

    /** {@return the MTU in bytes} */
    public int bytes() {
        return bytes;
    }

    /**
     * The constant for an MTU value.
     *
     * @param code an {@code enum ibv_mtu} value, 1 to 5
     * @return its constant
     * @throws IllegalArgumentException for another value
     */
    public static Mtu ofCode(int code) {
        for (Mtu m : values()) {
            if (m.code == code) {
                return m;
            }
        }
        throw new IllegalArgumentException("no IB MTU has code " + code);
    }

    /**
     * The largest IB MTU not above {@code bytes}.
     *
     * @param bytes a size in bytes, e.g. an Ethernet MTU minus the RoCE headers
     * @return that MTU, or {@link #MTU_256} when {@code bytes} is smaller
     */
    public static Mtu floor(int bytes) {
        Mtu best = MTU_256;
        for (Mtu m : values()) {
            if (m.bytes <= bytes) {
                best = m;
            }
        }
        return best;
    }
}
