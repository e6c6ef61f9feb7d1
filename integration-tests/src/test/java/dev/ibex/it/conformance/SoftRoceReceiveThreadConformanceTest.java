package dev.ibex.it.conformance;

import java.util.Map;

/**
 * The conformance suite against soft-roce with a receive thread per device address
 * ({@code ibex.softroce.receiveOnLoop=false}) instead of the default, where an event loop reads the sockets itself:
 * every behaviour the suite checks must hold in both modes.
 */
class SoftRoceReceiveThreadConformanceTest extends SoftRoceConformanceTest {

    @Override
    protected Map<String, String> extraSettings() {
        return Map.of("ibex.softroce.receiveOnLoop", "false");
    }

    @Override
    protected int portOffset() {
        return 2;
    }
}
