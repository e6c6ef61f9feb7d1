package dev.ibex.softroce.wire;

/**
 * Packet sequence numbers: 24-bit counters that wrap. Comparison is rxe's {@code psn_compare}: the
 * difference shifted into the top 24 bits of an int, so a PSN up to 2^23 ahead counts as "after".
 */
public final class Psn {
    /** PSNs are 24 bits wide. */
    public static final int MASK = 0xFF_FFFF;

    private Psn() {
    }

    /** {@code psn + n} modulo 2^24 ({@code n} may be negative). */
    public static int add(int psn, int n) {
        return (psn + n) & MASK;
    }

    /** The PSN after {@code psn}. */
    public static int next(int psn) {
        return (psn + 1) & MASK;
    }

    /**
     * Signed distance {@code a - b} in the range [-2^23, 2^23): negative when {@code a} comes before
     * {@code b}, zero when equal, positive when after.
     */
    public static int diff(int a, int b) {
        return (a - b) << 8 >> 8;
    }

    /** Negative, zero or positive as {@code a} is before, equal to or after {@code b} (modulo 2^24). */
    public static int compare(int a, int b) {
        return Integer.signum((a - b) << 8);
    }

    /** Whether {@code psn} fits in 24 bits. */
    public static boolean isValid(int psn) {
        return (psn & ~MASK) == 0;
    }

    /** Throws {@link IllegalArgumentException} unless {@code psn} fits in 24 bits. */
    public static int check(int psn) {
        if (!isValid(psn)) {
            throw new IllegalArgumentException("PSN 0x" + Integer.toHexString(psn) + " does not fit in 24 bits");
        }
        return psn;
    }
}
