package dev.ibex.rsocket;

/**
 * The RSocket transport TCK with RSocket's random fragmentation ({@code TransportPair(..., true)}: both sides
 * fragment at an MTU of 256–511 bytes), over Ibex on soft-roce: every large payload arrives as many small frames,
 * each one RDMA message. As {@link RdmaTransportTckTest} otherwise.
 */
class RdmaFragmentationTckTest extends SoftRoceTck {
    @Override
    boolean fragmented() {
        return true;
    }
}
