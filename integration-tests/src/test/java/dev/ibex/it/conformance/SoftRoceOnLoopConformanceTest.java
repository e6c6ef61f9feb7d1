package dev.ibex.it.conformance;

/**
 * The conformance suite against soft-roce polled as an event loop polls it ({@code Fabric.createLoopPoller()}): the
 * pump's thread reads the devices' sockets itself and processes each packet to its completion, with no receive
 * thread (soft-roce's {@code receiveOnLoop}, the default). Every behaviour the suite checks must hold in this mode
 * too; {@link SoftRoceConformanceTest} runs it with the receive threads a plain poller leaves in place.
 */
class SoftRoceOnLoopConformanceTest extends SoftRoceConformanceTest {

    @Override
    protected boolean loopPoller() {
        return true;
    }

    @Override
    protected int portOffset() {
        return 2;
    }
}
