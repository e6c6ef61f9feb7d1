package dev.ibex.softroce.cm;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Random;
import java.util.concurrent.locks.ReentrantLock;

/** A deterministic single-threaded world: MADs are delivered at once, timers run on a virtual clock. */
final class Sim {
    final VirtualTimer timer = new VirtualTimer();
    final MadNetwork net = new MadNetwork();
    private final Random random = new Random(42);

    /** A CM on its own lock (one "host"). */
    IbCm cm(CmTimings timings) {
        return new IbCm(timer, timings, new ReentrantLock(), random);
    }

    /** Delivers everything and runs every timer due within {@code millis}, in time order. */
    void runFor(long millis) {
        long end = timer.now() + millis;
        while (true) {
            net.deliverAll();
            if (!timer.runNext(end)) {
                break;
            }
        }
        timer.advanceTo(end);
        net.deliverAll();
    }

    /** Delivers everything without moving the clock. */
    void settle() {
        runFor(0);
    }

    static InetAddress ip(String s) {
        try {
            return InetAddress.getByName(s);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
    }
}
