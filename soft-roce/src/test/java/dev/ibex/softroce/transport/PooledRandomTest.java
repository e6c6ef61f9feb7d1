package dev.ibex.softroce.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.security.SecureRandom;
import org.junit.jupiter.api.Test;

/**
 * The pool hands out exactly the DRBG's bytes, in order, drawing them {@value PooledRandom#POOL} at a time instead of
 * one generate call per number (each QPN, comm ID and PSN of a connection was one).
 */
class PooledRandomTest {
    /** A source counting its calls and yielding 0, 1, 2 … so the order is visible. */
    static final class CountingSource extends SecureRandom {
        int calls;
        int nextByte;
        final ByteArrayOutputStream given = new ByteArrayOutputStream();

        @Override
        public synchronized void nextBytes(byte[] bytes) {
            calls++;
            for (int i = 0; i < bytes.length; i++) {
                bytes[i] = (byte) nextByte++;
            }
            given.write(bytes, 0, bytes.length);
        }
    }

    @Test
    void numbersComeFromTheSourceInOrderAndInBatches() {
        CountingSource source = new CountingSource();
        SecureRandom pooled = new PooledRandom(source);

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < 1000; i++) {
            int v = pooled.nextInt();
            out.write(v >>> 24);
            out.write(v >>> 16);
            out.write(v >>> 8);
            out.write(v);
        }
        byte[] odd = new byte[301]; // a request across pool boundaries
        pooled.nextBytes(odd);
        out.write(odd, 0, odd.length);

        assertThat(source.calls).isEqualTo((4000 + 301 + PooledRandom.POOL - 1) / PooledRandom.POOL);
        byte[] given = source.given.toByteArray();
        assertThat(out.toByteArray()).isEqualTo(java.util.Arrays.copyOf(given, 4301));
    }

    @Test
    void theDevicesGeneratorIsPooledOverASeededDrbg() {
        SecureRandom r = SoftDevice.seededRandom();
        assertThat(r).isInstanceOf(PooledRandom.class);
        assertThat(r.nextLong()).isNotEqualTo(r.nextLong());
    }
}
