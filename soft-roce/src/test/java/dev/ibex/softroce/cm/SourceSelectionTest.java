package dev.ibex.softroce.cm;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.UnknownHostException;
import org.junit.jupiter.api.Test;

/**
 * The source toward a loopback destination is the one the OS routing table gives, without asking it (a socket and
 * three system calls on each connect before); anything else is still asked.
 */
class SourceSelectionTest {

    static InetAddress ip(String s) {
        try {
            return InetAddress.getByName(s);
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aLoopbackDestinationsSourceIsKnownAndIsTheOnesTheOsGives() {
        for (String dst : new String[] {"127.0.0.1", "127.0.0.3", "127.1.2.3"}) {
            assertThat(SourceSelection.loopbackSource(null, ip(dst))).as(dst)
                    .isEqualTo(SourceSelection.askTheOs(null, ip(dst))).isEqualTo(ip("127.0.0.1"));
            assertThat(SourceSelection.loopbackSource(ip("0.0.0.0"), ip(dst))).as(dst).isEqualTo(ip("127.0.0.1"));
            assertThat(SourceSelection.loopbackSource(ip("127.0.0.2"), ip(dst))).as("from 127.0.0.2 to " + dst)
                    .isEqualTo(SourceSelection.askTheOs(ip("127.0.0.2"), ip(dst))).isEqualTo(ip("127.0.0.2"));
        }
    }

    @Test
    void otherDestinationsAndSourcesAreLeftToTheOs() {
        assertThat(SourceSelection.loopbackSource(null, ip("192.0.2.1"))).isNull();
        assertThat(SourceSelection.loopbackSource(null, ip("::1"))).isNull();
        assertThat(SourceSelection.loopbackSource(ip("192.0.2.1"), ip("127.0.0.3"))).isNull();
        assertThat(SourceSelection.routeSource(null, ip("127.0.0.3"))).isEqualTo(ip("127.0.0.1"));
    }
}
