package dev.ibex.softroce.cm;

import dev.ibex.cm.spi.ProviderConfig;

/**
 * The CM's clock settings, as IBA time values (t means 4.096 µs · 2^t; the kernel approximates that as
 * {@code 1 << max(t − 8, 0)} ms). Defaults are upstream's for RoCE; tests use {@link #FAST}.
 *
 * <p>Derived timings: an outstanding REQ is retried every {@code 2·ms(PLT) + ms(cmResponseTimeout)}, a REP or
 * DREQ every {@code ms(cmResponseTimeout)}, a SIDR_REQ every {@code ms(cmResponseTimeout)}, each
 * {@code maxCmRetries} times; timewait and the QP ACK timeout are {@code ms(ackTimeout)} with
 * {@code ackTimeout = cm_ack_timeout(caAckDelay, PLT)} (17 by default, ≈ 512 ms).
 *
 * @param cmResponseTimeout {@code CMA_CM_RESPONSE_TIMEOUT}, 20 (≈ 4.1 s)
 * @param maxCmRetries {@code CMA_MAX_CM_RETRIES}, 15
 * @param packetLifeTime {@code CMA_IBOE_PACKET_LIFETIME}, 16
 * @param mraServiceTimeout the service timeout of the RDMA CM's (delayed) MRA, 24 (≈ 68.7 s)
 * @param caAckDelay the device's local CA ACK delay (rxe: 15), sent as the REP's target ACK delay
 */
public record CmTimings(int cmResponseTimeout, int maxCmRetries, int packetLifeTime, int mraServiceTimeout,
        int caAckDelay) {

    /** Upstream values: REQ retried every ≈ 4.6 s, UNREACHABLE after ≈ 74 s, timewait ≈ 512 ms. */
    public static final CmTimings DEFAULT = new CmTimings(20, 15, 16, 24, 15);

    /**
     * For tests: REQ retried every 256 ms, UNREACHABLE after ≈ 1 s (4 tries), REP/DREQ/SIDR_REQ every 128 ms,
     * timewait and QP ACK timeout 128 ms (ACK timeout 15: RETRY_EXC_ERR after ≈ 1 s with retry_cnt 7), MRA
     * service timeout 512 ms (a slow accept survives). Every timer stays well above the scheduling jitter of a
     * loaded 2-core CI machine, so tests that are not about retries see no spurious duplicate REQ/SIDR_REQ (a SIDR
     * retry crossing the answer is a second request) and no spurious RC retry exhaustion.
     */
    public static final CmTimings FAST = new CmTimings(15, 3, 14, 17, 10);

    /** Provider-config keys (ProviderConfig or system properties). */
    public static final String PREFIX = "ibex.softroce.cm.";

    public CmTimings {
        check("cmResponseTimeout", cmResponseTimeout, 31);
        check("maxCmRetries", maxCmRetries, 15);
        check("packetLifeTime", packetLifeTime, 30);
        check("mraServiceTimeout", mraServiceTimeout, 31);
        check("caAckDelay", caAckDelay, 31);
    }

    private static void check(String name, int v, int max) {
        if (v < 0 || v > max) {
            throw new IllegalArgumentException(name + " must be within 0.." + max + ", got " + v);
        }
    }

    /**
     * Reads {@code ibex.softroce.cm.responseTimeout}, {@code .maxRetries}, {@code .packetLifeTime},
     * {@code .mraTimeout} and {@code .caAckDelay}; {@code ibex.softroce.cm.timings=fast} starts from
     * {@link #FAST}.
     */
    public static CmTimings from(ProviderConfig config) {
        CmTimings base = "fast".equalsIgnoreCase(config.get(PREFIX + "timings", "default")) ? FAST : DEFAULT;
        return new CmTimings(config.getInt(PREFIX + "responseTimeout", base.cmResponseTimeout),
                config.getInt(PREFIX + "maxRetries", base.maxCmRetries),
                config.getInt(PREFIX + "packetLifeTime", base.packetLifeTime),
                config.getInt(PREFIX + "mraTimeout", base.mraServiceTimeout),
                config.getInt(PREFIX + "caAckDelay", base.caAckDelay));
    }

    /** {@code cm_convert_to_ms}: an IBA time value in (approximate) milliseconds. */
    public static long toMillis(int ibaTime) {
        return 1L << Math.max(ibaTime - 8, 0);
    }

    /**
     * {@code cm_ack_timeout}: 4.096·2^t ≥ 4.096·2^ackDelay + 2·4.096·2^lifeTime, rounded so that the larger term
     * is incremented only when the other is within 50 %.
     */
    public static int ackTimeout(int caAckDelay, int packetLifeTime) {
        int t = packetLifeTime + 1;
        if (t >= caAckDelay) {
            t += caAckDelay >= t - 1 ? 1 : 0;
        } else {
            t = caAckDelay + (t >= caAckDelay - 1 ? 1 : 0);
        }
        return Math.min(31, t);
    }

    /** How long an outstanding REQ waits for an answer per try. */
    public long reqTimeoutMillis() {
        return 2 * toMillis(packetLifeTime) + toMillis(cmResponseTimeout);
    }

    /** The QP ACK timeout (and timewait) of a connection over a path with this packet lifetime. */
    public int ackTimeout() {
        return ackTimeout(caAckDelay, packetLifeTime);
    }
}
