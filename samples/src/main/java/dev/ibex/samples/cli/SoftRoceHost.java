package dev.ibex.samples.cli;

import dev.ibex.cm.buffer.BufferPool;
import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.loop.LoopOptions;
import dev.ibex.cm.spi.Fabric;
import dev.ibex.cm.spi.ProviderConfig;
import dev.ibex.cm.spi.Providers;
import java.time.Duration;
import java.util.Map;

/**
 * One emulated host of the tour: a soft-roce fabric with one device on a loopback address and one event loop
 * whose registered buffers may be RDMA targets. Closing it reports what was left open (nothing, if every
 * connection, QP and buffer came back).
 */
public final class SoftRoceHost implements AutoCloseable {
    private final EventLoopGroup loops;
    private final Fabric fabric;
    private int residue = -1;

    public SoftRoceHost(String device, String ip, int udpPort, int bufferSize) {
        fabric = Providers.select("soft-roce").open(ProviderConfig.of(Map.of(
                "ibex.softroce.devices", device + "=" + ip,
                "ibex.softroce.port", Integer.toString(udpPort))));
        LoopOptions options = LoopOptions.DEFAULT.withLoops(1).withThreadName(device + "-loop")
                .withCloseTimeout(Duration.ofSeconds(3))
                .withBuffers(BufferPool.Options.DEFAULT.withBufferSize(bufferSize)
                        .withSlabs(64, Math.max(512, (256 << 20) / bufferSize))); // local only: peers get exposures
        try {
            loops = EventLoopGroup.of(fabric, options);
        } catch (RuntimeException e) {
            fabric.close();
            throw e;
        }
    }

    /** The host's event loop (one). */
    public EventLoopGroup loops() {
        return loops;
    }

    /** Closes the loop (and with it every endpoint, QP and pool), then the fabric; idempotent. */
    @Override
    public void close() {
        if (residue >= 0) {
            return;
        }
        try {
            loops.close();
            residue = fabric.resources().userResources();
        } finally {
            fabric.close();
        }
    }

    /** After {@link #close()}: how many user resources (ids, QPs, CQs, MRs, PDs …) the loop left behind. */
    public int residue() {
        return residue;
    }
}
