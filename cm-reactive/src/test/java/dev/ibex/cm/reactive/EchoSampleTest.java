package dev.ibex.cm.reactive;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class EchoSampleTest {

    @Test
    void theSampleEchoes() {
        try (SoftHosts hosts = new SoftHosts()) {
            // one host is enough for the sample: server and client share the loops on 127.0.0.2
            assertThat(EchoSample.run(hosts.server, SoftHosts.SERVER_IP)).containsExactly("one", "two", "three");
            hosts.awaitQuiet();
        }
    }
}
