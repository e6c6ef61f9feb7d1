package dev.ibex.softroce.wire;

/**
 * The 5-bit RNR timer codes of IBTA table 45 (carried in an RNR NAK and in {@code min_rnr_timer}):
 * how long a requester waits before retrying after "receiver not ready". Code 0 is the longest,
 * 655.36 ms; rxe's table has the typo 61410 µs for code 25, corrected here to 61440 µs.
 */
public final class RnrTimer {
    private static final int[] MICROS = {
        655_360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1_280, 1_920, 2_560, 3_840,
        5_120, 7_680, 10_240, 15_360, 20_480, 30_720, 40_960, 61_440, 81_920, 122_880, 163_840, 245_760,
        327_680, 491_520
    };

    private RnrTimer() {
    }

    /** The delay of {@code code} (0–31) in nanoseconds. */
    public static long nanos(int code) {
        Bth.checkWidth(code, 0x1F, "RNR timer code");
        return MICROS[code] * 1_000L;
    }

    /** The smallest code whose delay is at least {@code nanos} (0, the longest, if none is shorter). */
    public static int codeFor(long nanos) {
        for (int code = 1; code < MICROS.length; code++) { // codes 1..31 grow monotonically
            if (MICROS[code] * 1_000L >= nanos) {
                return code;
            }
        }
        return 0;
    }
}
