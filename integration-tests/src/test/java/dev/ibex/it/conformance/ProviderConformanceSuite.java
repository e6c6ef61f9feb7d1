package dev.ibex.it.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.spi.Fabric;
import dev.ibex.cm.spi.ResourceCounts;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The provider conformance suite: one set of tests, run against every provider through the SPI alone (no cm-core
 * framework). A subclass names the {@link ProviderUnderTest}; the tests come from the parts it implements. Each test
 * gets a fresh {@link Scope} and {@link EventPump}; afterwards everything it opened is closed and the fabric must
 * report zero user resources. The fabric itself is opened once per class and must be empty after closing.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
public abstract class ProviderConformanceSuite implements CmConformance, RcDataConformance, UdConformance,
        MulticastConformance, AsyncEventConformance, TeardownConformance, MemoryWindowConformance,
        WrBatchConformance, TagMatchingConformance {
    private static final AtomicInteger PORTS = new AtomicInteger(20_000 + (int) (ProcessHandle.current().pid() % 20_000));

    private static final Logger LOG = LoggerFactory.getLogger(ProviderConformanceSuite.class);

    private ProviderUnderTest provider;
    private long started;
    private Fabric fabric;
    private Scope scope;
    private EventPump pump;

    /** Whether the tests' pump polls through {@link Fabric#createLoopPoller()}, as an event loop does (default: no). */
    protected boolean loopPoller() {
        return false;
    }

    /** The provider and how to use it. Called once per class. */
    protected abstract ProviderUnderTest createProvider();

    @BeforeAll
    void openFabric() {
        provider = createProvider();
        fabric = provider.open();
    }

    @AfterAll
    void closeFabric() {
        if (fabric != null) {
            fabric.close();
            assertThat(fabric.resources().total()).as("resources after closing the fabric: %s", fabric.resources())
                    .isZero();
        }
    }

    @BeforeEach
    void openScope(TestInfo test) {
        started = System.nanoTime();
        scope = new Scope();
        pump = scope.add(new EventPump(fabric, scope, provider.eventTimeout(), loopPoller()));
    }

    @AfterEach
    void closeScope(TestInfo test) {
        long body = System.nanoTime();
        scope.close();
        long end = System.nanoTime();
        LOG.info("{} {}: {} ms, closing {} ms", provider.name(), test.getDisplayName(), (body - started) / 1_000_000,
                (end - body) / 1_000_000);
        ResourceCounts left = fabric.resources();
        assertThat(left.userResources()).as("resources left open after the test: %s", left).isZero();
    }

    @Override
    public ProviderUnderTest provider() {
        return provider;
    }

    @Override
    public Fabric fabric() {
        return fabric;
    }

    @Override
    public Scope scope() {
        return scope;
    }

    @Override
    public EventPump pump() {
        return pump;
    }

    @Override
    public int nextPort() {
        return PORTS.incrementAndGet();
    }
}
