package dev.ibex.cm.spi;

/** {@code enum ibv_qp_type} (the transports Ibex supports). */
public enum QpType {
    RC(2),
    UC(3),
    UD(4);

    private final int code;

    QpType(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    public static QpType ofCode(int code) {
        for (QpType t : values()) {
            if (t.code == code) {
                return t;
            }
        }
        throw new IllegalArgumentException("unsupported QP type " + code);
    }
}
