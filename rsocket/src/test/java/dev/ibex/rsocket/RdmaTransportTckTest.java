package dev.ibex.rsocket;

import io.rsocket.test.TransportTest;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * RSocket's transport TCK ({@code io.rsocket:rsocket-test}'s {@link TransportTest}, 20 tests, one skipped unless
 * {@code TEST_SLOW_ENABLED}) over Ibex on soft-roce: two soft hosts on loopback, the TCK's leak-tracking allocators
 * on both sides. After each test every connection and listener is gone.
 */
class RdmaTransportTckTest implements TransportTest {
    static SoftRoceHosts hosts;
    TransportPair<?, ?> pair;

    @BeforeAll
    static void openHosts() {
        hosts = new SoftRoceHosts(false);
    }

    @AfterAll
    static void closeHosts() {
        hosts.close();
    }

    @BeforeEach
    void createPair() {
        pair = TckPairs.pair(hosts.server, SoftRoceHosts.SERVER_IP, hosts.client, false, false);
    }

    @AfterEach
    @Override
    public void close() {
        TransportTest.super.close();
        hosts.awaitQuiet(Duration.ofSeconds(30));
    }

    @Override
    public Duration getTimeout() {
        return Duration.ofMinutes(2);
    }

    @Override
    public TransportPair getTransportPair() {
        return pair;
    }
}
