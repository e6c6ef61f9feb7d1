package dev.ibex.samples.cmtime;

import dev.ibex.cm.loop.EventLoop;
import dev.ibex.cm.loop.LoopEndpoint;
import dev.ibex.cm.spi.CmEvent;
import dev.ibex.cm.spi.CmId;
import dev.ibex.cm.spi.CompletionQueue;

/**
 * One connection of the step-by-step client ({@code struct node}): its CM id, the CQ reservation of its QP, and
 * what is left of its retries. As the id's context it receives the id's CM events from the loop.
 */
final class CmNode implements LoopEndpoint {
    final int index;
    private final CmSteps steps;
    CmId id;
    CompletionQueue cq;
    boolean error;
    int retries;

    CmNode(CmSteps steps, int index) {
        this.steps = steps;
        this.index = index;
    }

    @Override
    public EventLoop loop() {
        return steps.loop();
    }

    @Override
    public void onCmEvent(CmEvent event) {
        steps.onEvent(this, event);
    }

    @Override
    public void close() {
        abort();
    }

    @Override
    public void abort() {
        if (id != null) {
            id.close();
            id = null;
        }
    }
}
