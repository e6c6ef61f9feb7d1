package dev.ibex.rsocket;

/**
 * RSocket's transport TCK ({@code io.rsocket:rsocket-test}'s {@link io.rsocket.test.TransportTest}, 20 tests, one
 * skipped unless {@code TEST_SLOW_ENABLED}) over Ibex on soft-roce, without fragmentation.
 */
class RdmaTransportTckTest extends SoftRoceTck {
    @Override
    boolean fragmented() {
        return false;
    }
}
