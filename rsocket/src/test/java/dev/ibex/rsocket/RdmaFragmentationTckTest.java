package dev.ibex.rsocket;

import io.rsocket.test.TransportTest;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * The RSocket transport TCK with RSocket's random fragmentation ({@code TransportPair(..., true)}: both sides
 * fragment at an MTU of 256–511 bytes), over Ibex on soft-roce: every large payload arrives as many small frames,
 * each one RDMA message. As {@link RdmaTransportTckTest} otherwise.
 */
class RdmaFragmentationTckTest implements TransportTest {
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
        pair = TckPairs.pair(hosts.server, SoftRoceHosts.SERVER_IP, hosts.client, true, false);
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
