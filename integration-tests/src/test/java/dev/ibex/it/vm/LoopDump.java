package dev.ibex.it.vm;

import java.util.Map;

/** Prints what the event-loop threads are doing, for a VM test that waited in vain on one. */
final class LoopDump {
    private LoopDump() {
    }

    static void print(String why) {
        StringBuilder b = new StringBuilder("thread dump of the ibex threads (" + why + "):\n");
        for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
            if (!e.getKey().getName().startsWith("ibex")) {
                continue;
            }
            b.append('"').append(e.getKey().getName()).append("\" ").append(e.getKey().getState()).append('\n');
            for (StackTraceElement s : e.getValue()) {
                b.append("    at ").append(s).append('\n');
            }
        }
        System.out.println(b);
    }
}
