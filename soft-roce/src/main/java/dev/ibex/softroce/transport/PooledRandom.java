package dev.ibex.softroce.transport;

import java.security.SecureRandom;
import java.security.SecureRandomSpi;

/**
 * Random bytes drawn from a DRBG {@value #POOL} at a time and handed out in order: the DRBG's output, unchanged, at a
 * fraction of its per-call cost. Each {@code nextInt} of a DRBG is a full generate call (hash rounds, reseed
 * bookkeeping, a lock), and every connection draws several numbers — its QPN on each side, its CM comm ID and
 * starting PSNs — which made the DRBG about 5 % of a loop's time in a connect storm. Names stay as unpredictable as
 * the DRBG makes them.
 *
 * <p><b>Threading.</b> Thread-safe: {@link SecureRandom} serialises calls into this SPI (it declares no thread
 * safety).
 */
final class PooledRandom extends SecureRandom {
    /** Bytes drawn from the DRBG at once. */
    static final int POOL = 256;

    /**
     * @param drbg where the bytes come from (seeded already)
     */
    PooledRandom(SecureRandom drbg) {
        super(new Spi(drbg), drbg.getProvider());
    }

    /** The pool in front of the DRBG. */
    private static final class Spi extends SecureRandomSpi {
        private final transient SecureRandom drbg;
        private final byte[] pool = new byte[POOL];
        private int next = POOL;

        Spi(SecureRandom drbg) {
            this.drbg = drbg;
        }

        @Override
        protected void engineSetSeed(byte[] seed) {
            drbg.setSeed(seed);
            next = POOL; // what is pooled predates the seed
        }

        @Override
        protected void engineNextBytes(byte[] bytes) {
            int done = 0;
            while (done < bytes.length) {
                if (next == POOL) {
                    drbg.nextBytes(pool);
                    next = 0;
                }
                int n = Math.min(bytes.length - done, POOL - next);
                System.arraycopy(pool, next, bytes, done, n);
                java.util.Arrays.fill(pool, next, next + n, (byte) 0); // handed out: not kept
                next += n;
                done += n;
            }
        }

        @Override
        protected byte[] engineGenerateSeed(int numBytes) {
            return drbg.generateSeed(numBytes);
        }
    }
}
