package dev.ibex.samples.cli;

import dev.ibex.cm.buffer.BufferPool;
import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.loop.LoopOptions;
import dev.ibex.cm.spi.ProviderConfig;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * The options every sample shares (a picocli mixin): which provider, its configuration, and how long the run may
 * take. The ports run on one event loop, as the C tools run on one thread per concern.
 */
public final class FabricOptions {

    @Option(names = "--provider", paramLabel = "NAME",
            description = "RDMA provider: rdma-core or soft-roce (default: -Dibex.provider, else rdma-core when it "
                    + "sees a device, else soft-roce)")
    String provider;

    @Option(names = {"-D", "--config"}, paramLabel = "KEY=VALUE", mapFallbackValue = "",
            description = "provider setting, e.g. -D ibex.softroce.devices=soft0=127.0.0.2 (repeatable)")
    Map<String, String> config = new LinkedHashMap<>();

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "print this help and exit")
    boolean help;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "0",
            description = "give up after this many seconds, exit status 110 (default 0: wait forever, like the C tool)")
    long timeoutSeconds;

    /** The provider name given, or {@code null} for the selection rule. */
    public String provider() {
        return provider;
    }

    /** The {@code -D} settings given; a launcher may add to them before {@link #open}. */
    public Map<String, String> settings() {
        return config;
    }

    public ProviderConfig providerConfig() {
        return ProviderConfig.of(config);
    }

    /** The run's bound, or {@code null} for none. */
    public Duration timeout() {
        return timeoutSeconds > 0 ? Duration.ofSeconds(timeoutSeconds) : null;
    }

    /**
     * Opens the provider and one event loop whose registered buffers hold at least {@code bufferSize} bytes.
     */
    public EventLoopGroup open(int bufferSize) {
        return open(bufferSize, 1);
    }

    /**
     * Opens the provider and {@code loops} event loops (a server that spreads its accepted connections over them)
     * whose registered buffers hold at least {@code bufferSize} bytes.
     */
    public EventLoopGroup open(int bufferSize, int loops) {
        int size = Math.max(4096, Integer.highestOneBit(Math.max(1, bufferSize - 1)) << 1);
        LoopOptions options = LoopOptions.DEFAULT.withLoops(loops).withThreadName("sample-loop")
                .withCloseTimeout(Duration.ofSeconds(3))
                .withBuffers(BufferPool.Options.DEFAULT.withBufferSize(size).withSlabs(Math.max(1, (1 << 20) / size),
                        Math.max(256, (64 << 20) / size)));
        return EventLoopGroup.open(provider, providerConfig(), options);
    }

    /**
     * {@link #open} for UD programs: a receive buffer must take the 40-byte GRH plus a datagram as large as the
     * path MTU (at most 4096 bytes), whatever size the program sends.
     */
    public EventLoopGroup openForDatagrams(int messageSize) {
        return open(Math.max(messageSize, 4096) + 40);
    }
}
