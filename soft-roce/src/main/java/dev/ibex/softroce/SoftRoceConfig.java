package dev.ibex.softroce;

import dev.ibex.cm.spi.IdleSpin;
import dev.ibex.cm.spi.ProviderConfig;
import dev.ibex.softroce.transport.TransportSettings;
import java.nio.file.Path;
import java.util.List;

/**
 * The soft provider's settings, read from a {@link ProviderConfig} (whose values fall back to system properties).
 * Every key and default is listed in {@code soft-roce/README.md}.
 *
 * @param udpPort the UDP port every device binds and sends to (RoCEv2: 4791)
 * @param devices the devices to open
 * @param timerScale factor applied to the transport's timers (retransmit, RNR) and offered to the CM for its
 *     own; below 1 for fast tests, 1 for real values
 * @param retryCountSevenIsInfinite rxe compatibility: {@code retry_cnt = 7} retries forever (rxe) instead of
 *     seven times (IBTA)
 * @param receiveBufferBytes {@code SO_RCVBUF} of each device socket
 * @param pollerSpinNanos how long a poller spins before parking, every time (0: as {@code pollerAdaptiveSpinNanos} says)
 * @param pollerAdaptiveSpinNanos without a fixed spin, the longest a poller's spin grows to as its waits show that
 *     work comes soon after it blocks ({@link IdleSpin#adaptive}; 0: block at once)
 * @param pollerAckHoldNanos how long a spinning loop may hold the ACK of a request it answered, so that one ACK
 *     covers the next requests too (0: never; 50 µs by default; no effect without a fixed spin)
 * @param pcap when set, every datagram sent and received is written to this pcap file
 * @param faults fault-injection settings handed to the network layer, as {@code key=value} text (empty: none)
 * @param maxMulticastGroups groups a device may join ({@code max_mcast_grp}); each holds one socket
 * @param receiveOnLoop an event loop of the fabric (the first, then the next when it closes) reads the devices'
 *     sockets itself (run to completion) instead of a receive thread per address handing packets over (default)
 */
public record SoftRoceConfig(int udpPort, List<DeviceConfig> devices, double timerScale,
        boolean retryCountSevenIsInfinite, int receiveBufferBytes, long pollerSpinNanos, long pollerAdaptiveSpinNanos,
        long pollerAckHoldNanos,
        Path pcap, ProviderConfig faults, int maxMulticastGroups, boolean receiveOnLoop) {

    public static final String PREFIX = "ibex.softroce.";
    public static final String PORT = PREFIX + "port";
    public static final String DEVICES = PREFIX + "devices";
    public static final String TIMER_SCALE = PREFIX + "timerScale";
    public static final String RETRY_SEVEN_INFINITE = PREFIX + "retry7Infinite";
    public static final String RCVBUF = PREFIX + "rcvbuf";
    public static final String POLLER_SPIN_NANOS = PREFIX + "poller.spinNanos";
    public static final String POLLER_ADAPTIVE_SPIN_NANOS = PREFIX + "poller.adaptiveSpinNanos";
    /**
     * {@link #pollerAdaptiveSpinNanos()} by default. It must exceed the time a peer takes to answer (after the loop
     * blocked; the wake-up's own lag is left out where the loop can tell it), or the window never grows: a few µs in
     * the 64 B loopback ping-pong, 20–40 µs for a 16 KiB RSocket request; and it bounds the CPU a loop spends in vain
     * when its traffic is sparse. docs/benchmarks.md, "A spin that adapts" and "A spin that sees past slow wake-ups",
     * measured it.
     */
    public static final long DEFAULT_POLLER_ADAPTIVE_SPIN_NANOS = 64_000;
    public static final String POLLER_ACK_HOLD_NANOS = PREFIX + "poller.ackHoldNanos";
    /**
     * {@link #pollerAckHoldNanos()} by default: 50 µs, which only a fixed spin ({@link #POLLER_SPIN_NANOS}) uses. A
     * hold delays the completion of a SEND whose peer answers it in the same turn; a requester that waits for each
     * such completion before it sends again stalls on a hold once, after which its responder holds no ACK of its
     * next requests for a while (docs/architecture.md, ACK coalescing). docs/benchmarks.md, "ACKs held across turns"
     * and "Held ACKs by default when spinning", measured it.
     */
    public static final long DEFAULT_POLLER_ACK_HOLD_NANOS = 50_000;
    public static final String PCAP = PREFIX + "pcap";
    public static final String MAX_MULTICAST_GROUPS = PREFIX + "maxMulticastGroups";
    public static final String RECEIVE_ON_LOOP = PREFIX + "receiveOnLoop";
    /** {@code max_mcast_grp} by default: rxe's {@code RXE_MAX_MCAST_GRP}. */
    public static final int DEFAULT_MAX_MULTICAST_GROUPS = 8192;
    /** Prefix of the fault-injection keys the network layer reads. */
    public static final String FAULT_PREFIX = PREFIX + "fault.";

    /** RoCEv2's UDP port. */
    public static final int DEFAULT_PORT = 4791;
    /** One device on the loopback address, so that a single process can talk to itself out of the box. */
    public static final String DEFAULT_DEVICES = "soft0=127.0.0.1";

    /**
     * Checks the settings and copies the device list.
     *
     * @throws IllegalArgumentException when the UDP port is outside 1 to 65535, no device is listed, the timer scale is
     * outside (0, 1000], or the receive buffer or the multicast group limit is negative
     */
    public SoftRoceConfig {
        if (udpPort <= 0 || udpPort > 65535) {
            throw new IllegalArgumentException(PORT + " must be a UDP port (1..65535), got " + udpPort);
        }
        devices = List.copyOf(devices);
        if (devices.isEmpty()) {
            throw new IllegalArgumentException(DEVICES + " names no device");
        }
        if (!(timerScale > 0) || timerScale > 1000) {
            throw new IllegalArgumentException(TIMER_SCALE + " must be in (0, 1000], got " + timerScale);
        }
        if (receiveBufferBytes < 0) {
            throw new IllegalArgumentException(RCVBUF + " must not be negative");
        }
        if (maxMulticastGroups < 0) {
            throw new IllegalArgumentException(MAX_MULTICAST_GROUPS + " must not be negative");
        }
    }

    /**
     * Reads every setting from {@code config} (and system properties).
     *
     * @param config the provider configuration ({@code ibex.softroce.*} keys)
     * @return the settings
     * @throws IllegalArgumentException when a setting is malformed or out of range
     */
    public static SoftRoceConfig from(ProviderConfig config) {
        int port = config.getInt(PORT, DEFAULT_PORT);
        List<DeviceConfig> devices = DeviceConfig.parseList(config.get(DEVICES, DEFAULT_DEVICES));
        double scale = Double.parseDouble(config.get(TIMER_SCALE, "1").trim());
        boolean rxe7 = config.getBoolean(RETRY_SEVEN_INFINITE, false);
        int rcvbuf = config.getInt(RCVBUF, 4 << 20);
        long spin = config.getLong(POLLER_SPIN_NANOS, 0);
        if (spin < 0) {
            throw new IllegalArgumentException(POLLER_SPIN_NANOS + " must be >= 0: " + spin);
        }
        long adaptiveSpin = config.getLong(POLLER_ADAPTIVE_SPIN_NANOS, DEFAULT_POLLER_ADAPTIVE_SPIN_NANOS);
        if (adaptiveSpin < 0) {
            throw new IllegalArgumentException(POLLER_ADAPTIVE_SPIN_NANOS + " must be >= 0: " + adaptiveSpin);
        }
        long ackHold = config.getLong(POLLER_ACK_HOLD_NANOS, DEFAULT_POLLER_ACK_HOLD_NANOS);
        if (ackHold < 0) {
            throw new IllegalArgumentException(POLLER_ACK_HOLD_NANOS + " must be >= 0: " + ackHold);
        }
        String pcap = config.get(PCAP, null);
        int groups = config.getInt(MAX_MULTICAST_GROUPS, DEFAULT_MAX_MULTICAST_GROUPS);
        boolean onLoop = config.getBoolean(RECEIVE_ON_LOOP, true);
        java.util.Map<String, String> faults = new java.util.HashMap<>();
        config.properties().forEach((k, v) -> {
            if (k.startsWith(FAULT_PREFIX)) {
                faults.put(k, v);
            }
        });
        System.getProperties().forEach((k, v) -> {
            if (k instanceof String s && s.startsWith(FAULT_PREFIX)) {
                faults.putIfAbsent(s, String.valueOf(v));
            }
        });
        return new SoftRoceConfig(port, devices, scale, rxe7, rcvbuf, spin, adaptiveSpin, ackHold,
                pcap == null || pcap.isBlank() ? null : Path.of(pcap), ProviderConfig.of(faults), groups, onLoop);
    }

    /**
     * {@code nanos} scaled by {@link #timerScale()}, at least 1.
     *
     * @param nanos a duration in nanoseconds
     * @return the scaled duration in nanoseconds
     */
    public long scaled(long nanos) {
        return Math.max(1, (long) (nanos * timerScale));
    }

    /**
     * {@return a new poller's spin: {@link #pollerSpinNanos()} every time when set, else one that adapts up to
     * {@link #pollerAdaptiveSpinNanos()}}
     */
    public IdleSpin idleSpin() {
        return pollerSpinNanos > 0 ? IdleSpin.fixed(pollerSpinNanos) : IdleSpin.adaptive(pollerAdaptiveSpinNanos);
    }

    /**
     * What the transport reads of these settings (the soft device is built with it).
     *
     * @return the UDP port, timer scale, {@code retry_cnt = 7} rule and multicast group limit of these settings
     */
    public TransportSettings transport() {
        return new TransportSettings(udpPort, timerScale, retryCountSevenIsInfinite, maxMulticastGroups);
    }
}
