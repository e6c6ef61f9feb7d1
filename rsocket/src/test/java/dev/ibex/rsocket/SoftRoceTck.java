package dev.ibex.rsocket;

import io.rsocket.test.TransportTest;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * RSocket's transport TCK over Ibex on soft-roce: two soft hosts on loopback for the class, a new transport pair per
 * test with the TCK's leak-tracking allocators on both sides; after each test every connection and listener is gone.
 * Subclasses choose whether RSocket fragments.
 */
abstract class SoftRoceTck implements TransportTest {
    static SoftRoceHosts hosts;
    TransportPair<?, ?> pair;

    /** Whether both sides fragment (RSocket's random MTU of 256–511 bytes). */
    abstract boolean fragmented();

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
        pair = TckPairs.pair(hosts.server, SoftRoceHosts.SERVER_IP, hosts.client, fragmented(), false);
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
