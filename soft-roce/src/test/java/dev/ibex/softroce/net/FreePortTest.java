package dev.ibex.softroce.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

class FreePortTest {
    @Test
    void thePortCanBeBoundOnEveryAddress() throws Exception {
        int port = FreePort.on("127.0.0.2", "127.0.0.3");
        try (DatagramSocket a = new DatagramSocket(new InetSocketAddress(InetAddress.getByName("127.0.0.2"), port));
             DatagramSocket b = new DatagramSocket(new InetSocketAddress(InetAddress.getByName("127.0.0.3"), port))) {
            assertThat(a.getLocalPort()).isEqualTo(b.getLocalPort()).isEqualTo(port);
        }
    }

    @Test
    void noAddressIsABadArgument() {
        assertThatThrownBy(FreePort::on).isInstanceOf(IllegalArgumentException.class);
    }
}
