package dev.ibex.softroce.transport;

/**
 * What the transport reads of the provider's settings ({@code SoftRoceConfig} builds it), so that the device and its
 * QPs need nothing from the provider's package.
 *
 * @param udpPort the UDP port every device binds and sends to (RoCEv2: 4791)
 * @param timerScale factor applied to the retransmit and RNR timers; below 1 for fast tests, 1 for real values
 * @param retryCountSevenIsInfinite rxe compatibility: {@code retry_cnt = 7} retries forever instead of seven times
 * @param maxMulticastGroups groups a device may join ({@code max_mcast_grp})
 */
public record TransportSettings(int udpPort, double timerScale, boolean retryCountSevenIsInfinite,
        int maxMulticastGroups) {

    /** {@code nanos} scaled by {@link #timerScale()}, at least 1. */
    public long scaled(long nanos) {
        return Math.max(1, (long) (nanos * timerScale));
    }
}
