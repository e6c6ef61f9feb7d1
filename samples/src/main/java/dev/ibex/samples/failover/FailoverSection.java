package dev.ibex.samples.failover;

import dev.ibex.samples.tour.TourContext;
import dev.ibex.samples.tour.TourSection;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** The tour's APM section: {@link FailoverDemo} — a stream survives a dead path, a re-arm and a second cut. */
public final class FailoverSection implements TourSection {
    @Override
    public String name() {
        return "apm";
    }

    @Override
    public String title() {
        return "Automatic path migration: a stream survives a dead path, is re-armed and fails back";
    }

    @Override
    public void run(TourContext tour) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        FailoverDemo.Options d = FailoverDemo.Options.DEFAULT;
        int exit = FailoverDemo.run(out, new FailoverDemo.Options(d.messagesPerSecond(), d.ackTimeout(),
                d.retryCount(), d.settle(), tour.step()));
        bytes.toString(StandardCharsets.UTF_8).lines().forEach(l -> tour.say("%s", l));
        if (exit != 0) {
            throw new IllegalStateException("the failover demo did not deliver every message exactly once");
        }
    }
}
