package dev.ibex.samples.cmtime;

import dev.ibex.cm.loop.EventLoop;
import dev.ibex.cm.loop.LoopDevice;
import dev.ibex.cm.spi.CmEvent;
import dev.ibex.cm.spi.ConnParam;
import dev.ibex.cm.spi.PortSpace;
import dev.ibex.cm.spi.QpCap;
import dev.ibex.cm.spi.QpInitAttr;
import dev.ibex.cm.spi.QpType;
import dev.ibex.samples.cli.SampleRun;
import java.net.InetSocketAddress;

/**
 * cmtime's client, step by step as the C tool does it: every connection goes through one step before any goes
 * through the next (create id, bind, resolve address, resolve route, create QP, connect, disconnect, destroy), so
 * each step's time is the CM's cost for N ids at once. It drives CM ids directly on the run's event loop — the
 * loop dispatches each id's events to its {@link CmNode} — because the endpoint API folds these steps into one
 * {@code connect}; {@code --endpoints} measures that instead ({@link EndpointTimer}).
 */
final class CmSteps {
    private static final QpCap CAP = new QpCap(1, 1, 1, 1, 0);

    private final SampleRun run;
    private final InetSocketAddress source;
    private final InetSocketAddress destination;
    private final int timeoutMs;
    private final int retries;
    private final CmNode[] nodes;
    private final StepTimes times;
    /** Takes the exit status once the table is printed: the run's end, or the next repetition. */
    private final java.util.function.IntConsumer finished;
    private Step step;
    private int started;
    private int completed;

    CmSteps(SampleRun run, InetSocketAddress source, InetSocketAddress destination, int connections, int timeoutMs,
            int retries, java.util.function.IntConsumer finished) {
        this.run = run;
        this.finished = finished;
        this.source = source;
        this.destination = destination;
        this.timeoutMs = timeoutMs;
        this.retries = retries;
        this.nodes = new CmNode[connections];
        this.times = new StepTimes(connections);
    }

    EventLoop loop() {
        return run.loop();
    }

    /** Starts on the loop; the run finishes after the table is printed. */
    void start() {
        loop().execute(this::createIds);
    }

    private void createIds() {
        run.out().println("creating id");
        times.start(Step.CREATE_ID);
        for (int i = 0; i < nodes.length; i++) {
            nodes[i] = new CmNode(this, i);
            times.start(i, Step.CREATE_ID);
            nodes[i].id = loop().cmChannel().createId(PortSpace.TCP, nodes[i]);
            times.end(i, Step.CREATE_ID);
        }
        times.end(Step.CREATE_ID);
        if (source != null) {
            run.out().println("binding source address");
            times.start(Step.BIND);
            for (CmNode n : nodes) {
                times.start(n.index, Step.BIND);
                try {
                    n.id.bind(source);
                    times.end(n.index, Step.BIND);
                } catch (RuntimeException e) {
                    run.out().println("failure bind addr: " + e.getMessage());
                    n.error = true;
                }
            }
            times.end(Step.BIND);
        }
        begin(Step.RESOLVE_ADDR, "resolving address");
    }

    /** Starts an asynchronous step on every connection without an error. */
    private void begin(Step s, String banner) {
        run.out().println(banner);
        step = s;
        started = 0;
        completed = 0;
        times.start(s);
        for (CmNode n : nodes) {
            if (n.error) {
                continue;
            }
            times.start(n.index, s);
            try {
                switch (s) {
                    case RESOLVE_ADDR -> {
                        n.retries = retries;
                        n.id.resolveAddr(source, destination, timeoutMs);
                    }
                    case RESOLVE_ROUTE -> {
                        n.retries = retries;
                        n.id.resolveRoute(timeoutMs);
                    }
                    case CONNECT -> n.id.connect(new ConnParam(null, 1, 1, false, retries, 0, false, 0));
                    case DISCONNECT -> {
                        n.id.disconnect();
                        destroyQp(n);
                    }
                    default -> throw new IllegalStateException("not an asynchronous step: " + s);
                }
                started++;
            } catch (RuntimeException e) {
                run.out().println("failure in " + s.label() + ": " + e.getMessage());
                n.error = true;
            }
        }
        check();
    }

    void onEvent(CmNode n, CmEvent e) {
        switch (e.type()) {
            case ADDR_RESOLVED -> done(n, Step.RESOLVE_ADDR);
            case ROUTE_RESOLVED -> done(n, Step.RESOLVE_ROUTE);
            case ESTABLISHED -> done(n, Step.CONNECT);
            case DISCONNECTED -> done(n, Step.DISCONNECT);
            case ADDR_ERROR -> {
                if (n.retries-- > 0 && retry(() -> n.id.resolveAddr(source, destination, timeoutMs))) {
                    return;
                }
                run.out().println("RDMA_CM_EVENT_ADDR_ERROR, error: " + e.status());
                n.error = true;
                done(n, Step.RESOLVE_ADDR);
            }
            case ROUTE_ERROR -> {
                if (n.retries-- > 0 && retry(() -> n.id.resolveRoute(timeoutMs))) {
                    return;
                }
                run.out().println("RDMA_CM_EVENT_ROUTE_ERROR, error: " + e.status());
                n.error = true;
                done(n, Step.RESOLVE_ROUTE);
            }
            case CONNECT_ERROR, UNREACHABLE, REJECTED -> {
                run.out().println("event: RDMA_CM_EVENT_" + e.type() + ", error: " + e.status());
                n.error = true;
                done(n, Step.CONNECT);
            }
            default -> { } // DEVICE_REMOVAL and the rest: cleanup happens at the end
        }
    }

    private static boolean retry(Runnable r) {
        try {
            r.run();
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    private void done(CmNode n, Step s) {
        times.end(n.index, s);
        if (s == step) {
            completed++;
            check();
        }
    }

    /** When every connection has finished the current step, goes on with the next. */
    private void check() {
        if (completed < started) {
            return;
        }
        times.end(step);
        switch (step) {
            case RESOLVE_ADDR -> begin(Step.RESOLVE_ROUTE, "resolving route");
            case RESOLVE_ROUTE -> {
                createQps();
                begin(Step.CONNECT, "connecting");
            }
            case CONNECT -> begin(Step.DISCONNECT, "disconnecting");
            case DISCONNECT -> destroy();
            default -> throw new IllegalStateException(step.toString());
        }
    }

    private void createQps() {
        run.out().println("creating qp");
        times.start(Step.CREATE_QP);
        for (CmNode n : nodes) {
            if (n.error) {
                continue;
            }
            times.start(n.index, Step.CREATE_QP);
            try {
                LoopDevice d = loop().device(n.id.device());
                n.cq = d.reserveCq(CAP.maxSendWr() + CAP.maxRecvWr());
                n.id.createQp(d.pd(), new QpInitAttr(n.cq, n.cq, null, CAP, QpType.RC, false, n));
                times.end(n.index, Step.CREATE_QP);
            } catch (RuntimeException e) {
                run.out().println("failure creating qp: " + e.getMessage());
                n.error = true;
            }
        }
        times.end(Step.CREATE_QP);
    }

    private void destroyQp(CmNode n) {
        n.id.destroyQp();
        if (n.cq != null) {
            loop().device(n.id.device()).unreserveCq(n.cq, CAP.maxSendWr() + CAP.maxRecvWr());
            n.cq = null;
        }
    }

    private void destroy() {
        run.out().println("destroying id");
        times.start(Step.DESTROY);
        for (CmNode n : nodes) {
            times.start(n.index, Step.DESTROY);
            if (n.cq != null) {
                destroyQp(n);
            }
            n.abort();
            times.end(n.index, Step.DESTROY);
        }
        times.end(Step.DESTROY);
        times.print(run.out(), StepTimes.all(source != null));
        boolean failed = false;
        for (CmNode n : nodes) {
            failed |= n.error;
        }
        finished.accept(failed ? 1 : 0);
    }

    StepTimes times() {
        return times;
    }
}
