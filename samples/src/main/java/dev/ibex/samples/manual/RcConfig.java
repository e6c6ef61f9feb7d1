package dev.ibex.samples.manual;

/**
 * {@code struct config_t} of the RC example. Mutable like the C global: {@code resources_create} fills in the
 * device name when none was given. Threading: the program's main thread.
 */
final class RcConfig {
    String devName;
    String serverName;
    int tcpPort;
    int ibPort;
    int gidIdx;

    RcConfig(String devName, String serverName, int tcpPort, int ibPort, int gidIdx) {
        this.devName = devName;
        this.serverName = serverName;
        this.tcpPort = tcpPort;
        this.ibPort = ibPort;
        this.gidIdx = gidIdx;
    }
}
