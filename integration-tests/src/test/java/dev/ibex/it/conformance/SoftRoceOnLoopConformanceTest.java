package dev.ibex.it.conformance;

import java.util.Map;

/**
 * The conformance suite against soft-roce receiving on the event loop ({@code ibex.softroce.receiveOnLoop}): the
 * first loop of each fabric reads the devices' sockets itself and processes each packet to its completion, with no
 * receive thread. Every behaviour the suite checks must hold in this mode too.
 */
class SoftRoceOnLoopConformanceTest extends SoftRoceConformanceTest {

    @Override
    protected Map<String, String> extraSettings() {
        return Map.of("ibex.softroce.receiveOnLoop", "true");
    }

    @Override
    protected int portOffset() {
        return 2;
    }
}
