package dev.ibex.bench.vm;

import dev.ibex.cm.spi.CmEvent;
import dev.ibex.cm.spi.CmId;
import dev.ibex.cm.spi.CompletionChannel;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.ConnParam;
import dev.ibex.cm.spi.DeviceContext;
import dev.ibex.cm.spi.EventChannel;
import dev.ibex.cm.spi.Fabric;
import dev.ibex.cm.spi.Poller;
import dev.ibex.cm.spi.PortSpace;
import dev.ibex.cm.spi.ProtectionDomain;
import dev.ibex.cm.spi.ProviderConfig;
import dev.ibex.cm.spi.Providers;
import dev.ibex.cm.spi.QpCap;
import dev.ibex.cm.spi.QpInitAttr;
import dev.ibex.cm.spi.QpType;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.IdentityHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The connection-setup floor of Java without Ibex's loops: rdma-core's {@code librdmacm/examples/cmtime.c} (the
 * version whose table {@link dev.ibex.bench.perftest.CmtimeResult} reads: "step total ms max ms min us us / conn")
 * call for call through the provider's SPI (FFM downcalls for rdma-core), as {@link MinimalPingPong} is for latency:
 * one {@link EventChannel} polled by the calling thread (the poller waits, then {@link EventChannel#poll()}), no
 * event loop, no endpoint, no listener. Beside C {@code cmtime} and the samples' port ({@link CmtimeWorkloads}) it
 * tells what the guest costs a JVM making the same calls from what Ibex's layers cost.
 *
 * <p>The client, as cmtime's: create an id for each of {@code -c} connections (all, timed one by one and in all),
 * resolve the address of each (all issued, then every event awaited), resolve the route (the same), create a QP on
 * each ({@code rdma_create_qp} with no PD and no CQs: librdmacm's per-device PD, allocated when the device is first
 * seen, and a completion channel and a CQ of one entry for each of send and receive, made here as librdmacm makes
 * them), connect (all ESTABLISHED), disconnect (disconnect and destroy the QP with its CQs and channels; all
 * DISCONNECTED), destroy the ids; then the table. {@code --repeat R} does that R times in one JVM, a table each (the
 * first is cold, the last warm). The server, as cmtime's: listen (backlog 0) and on each connect request create a QP
 * the same way and accept with no parameters; on DISCONNECTED disconnect, destroy the QP and the id; until killed.
 * cmtime's server hands requests and disconnects to two worker threads; here the polling thread does them inline.
 *
 * <p>Every wait is bounded ({@code --limit-seconds}, default {@value #DEFAULT_LIMIT_SECONDS}): a step whose events do
 * not all come in time fails with a message naming the step, the event and how many are missing.
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp benchmarks.jar dev.ibex.bench.vm.MinimalCmtime \
 *     [--provider rdma-core] [--limit-seconds S] (-s server_address [-c connections] [--repeat R] | -b bind_address)
 *     [-p port] [-r retries] [-t timeout_ms]
 * </pre>
 */
public final class MinimalCmtime implements AutoCloseable {
    /** The bound of every wait for events when {@code --limit-seconds} is not given. */
    static final int DEFAULT_LIMIT_SECONDS = 120;
    /** cmtime's steps in its order ("bind addr" left out: this client does not bind a source address). */
    static final String[] STEPS = {"create id", "resolve addr", "resolve route", "create qp", "connect", "disconnect",
        "destroy"};
    private static final int CREATE_ID = 0;
    private static final int RESOLVE_ADDR = 1;
    private static final int RESOLVE_ROUTE = 2;
    private static final int CREATE_QP = 3;
    private static final int CONNECT = 4;
    private static final int DISCONNECT = 5;
    private static final int DESTROY = 6;
    /** cmtime's {@code init_qp_attr}: one WR and one SGE each way, nothing inline. */
    private static final QpCap CAP = new QpCap(1, 1, 1, 1, 0);

    private final Fabric fabric;
    private final EventChannel channel;
    private final Poller poller;
    private final PrintStream out;
    private final long limitNanos;
    /** librdmacm's {@code cma_dev->pd}: one PD per device, allocated when an id is first bound to it. */
    private final Map<DeviceContext, ProtectionDomain> pds = new IdentityHashMap<>();
    private volatile boolean stopped;

    /** The events a client step has seen complete (its own or with an error), per step. */
    private final int[] completed = new int[STEPS.length];

    /**
     * Opens a fabric of {@code provider} with one event channel and a poller on it.
     *
     * @param provider the provider's name ("rdma-core", or "soft-roce" in tests)
     * @param config its settings
     * @param out where the progress lines and the tables go
     * @param limit the bound of every wait for events
     */
    MinimalCmtime(String provider, ProviderConfig config, PrintStream out, Duration limit) {
        this.out = out;
        this.limitNanos = limit.toNanos();
        fabric = Providers.byName(provider).orElseThrow(() -> new IllegalArgumentException("no provider " + provider))
                .open(config);
        try {
            channel = fabric.createEventChannel();
            poller = fabric.createPoller();
            poller.register(channel, channel);
        } catch (RuntimeException e) {
            fabric.close();
            throw e;
        }
    }

    /**
     * Runs the client or the server; the client exits 1 when a connection failed (its table is printed still), the
     * server runs until killed.
     *
     * @param args see the class comment
     */
    public static void main(String[] args) {
        String provider = "rdma-core";
        String server = null;
        String bind = null;
        int connections = 100;
        int port = 7471;
        int retries = 2;
        int timeoutMs = 2000;
        int repeat = 1;
        int limit = DEFAULT_LIMIT_SECONDS;
        try {
            for (int i = 0; i < args.length; i++) {
                String v = i + 1 < args.length ? args[i + 1] : null;
                if (v == null) {
                    throw new IllegalArgumentException("no value for " + args[i]);
                }
                switch (args[i++]) {
                    case "--provider" -> provider = v;
                    case "-s" -> server = v;
                    case "-b" -> bind = v;
                    case "-c" -> connections = Integer.parseInt(v);
                    case "-p" -> port = Integer.parseInt(v);
                    case "-r" -> retries = Integer.parseInt(v);
                    case "-t" -> timeoutMs = Integer.parseInt(v);
                    case "--repeat" -> repeat = Integer.parseInt(v);
                    case "--limit-seconds" -> limit = Integer.parseInt(v);
                    default -> throw new IllegalArgumentException("unknown option " + args[i - 1]);
                }
            }
            if ((server == null) == (bind == null) || connections <= 0 || repeat <= 0 || limit <= 0
                    || retries < 0 || retries > 7 || timeoutMs <= 0) {
                throw new IllegalArgumentException("one of -s and -b; -c, --repeat, --limit-seconds and -t positive, "
                        + "-r within 0..7");
            }
        } catch (IllegalArgumentException e) {
            System.err.println("MinimalCmtime: " + e.getMessage());
            System.err.println("usage: MinimalCmtime [--provider rdma-core] [--limit-seconds S] (-s server_address "
                    + "[-c connections] [--repeat R] | -b bind_address) [-p port] [-r retries] [-t timeout_ms]");
            System.exit(2);
            return;
        }
        int status;
        try (MinimalCmtime m = new MinimalCmtime(provider, ProviderConfig.DEFAULT, System.out,
                Duration.ofSeconds(limit))) {
            if (bind != null) {
                m.listen(new InetSocketAddress(bind, port));
                m.serve();
                status = 0;
            } else {
                status = 0;
                InetSocketAddress to = new InetSocketAddress(server, port);
                for (int r = 0; r < repeat && status == 0; r++) {
                    status = m.client(to, connections, retries, timeoutMs);
                }
            }
        }
        System.exit(status); // the provider's threads are daemons, but leave no doubt
    }

    /** One connection ({@code struct node}): its id, the CQs and channels librdmacm makes for its QP, its times. */
    private static final class Conn {
        final long[][] times = new long[STEPS.length][2];
        CmId id;
        boolean error;
        int retries;
        CompletionChannel recvChannel;
        CompletionQueue recvCq;
        CompletionChannel sendChannel;
        CompletionQueue sendCq;

        void start(int step) {
            times[step][0] = System.nanoTime();
        }

        void end(int step) {
            times[step][1] = System.nanoTime();
        }
    }

    /**
     * One run of cmtime's client: every step for all connections before the next, then the table.
     *
     * @param destination the server
     * @param connections cmtime's {@code -c}
     * @param retries cmtime's {@code -r}: resolution retries after an error event, and the connection's retry count
     * @param timeoutMs cmtime's {@code -t}: the resolutions' timeout
     * @return 0, or 1 when a connection failed (cmtime prints the error and goes on without it)
     * @throws IllegalStateException when a step's events did not all come within the limit
     */
    int client(InetSocketAddress destination, int connections, int retries, int timeoutMs) {
        java.util.Arrays.fill(completed, 0);
        long[][] times = new long[STEPS.length][2];
        Conn[] conns = new Conn[connections];
        for (int i = 0; i < connections; i++) {
            conns[i] = new Conn();
        }
        try {
            out.println("creating id");
            times[CREATE_ID][0] = System.nanoTime();
            for (Conn c : conns) {
                c.start(CREATE_ID);
                c.id = channel.createId(PortSpace.TCP, c);
                c.end(CREATE_ID);
            }
            times[CREATE_ID][1] = System.nanoTime();

            out.println("resolving address");
            times[RESOLVE_ADDR][0] = System.nanoTime();
            int started = issue(conns, RESOLVE_ADDR, "failure getting addr: ", c -> {
                c.retries = retries;
                c.id.resolveAddr(null, destination, timeoutMs);
            });
            await(RESOLVE_ADDR, started, "ADDR_RESOLVED", destination, timeoutMs);
            times[RESOLVE_ADDR][1] = System.nanoTime();

            out.println("resolving route");
            times[RESOLVE_ROUTE][0] = System.nanoTime();
            started = issue(conns, RESOLVE_ROUTE, "failure resolving route: ", c -> {
                c.retries = retries;
                c.id.resolveRoute(timeoutMs);
            });
            await(RESOLVE_ROUTE, started, "ROUTE_RESOLVED", destination, timeoutMs);
            times[RESOLVE_ROUTE][1] = System.nanoTime();

            out.println("creating qp");
            times[CREATE_QP][0] = System.nanoTime();
            issue(conns, CREATE_QP, "failure creating qp: ", c -> {
                createQp(c);
                c.end(CREATE_QP);
            });
            times[CREATE_QP][1] = System.nanoTime();

            out.println("connecting");
            // cmtime's conn_param: responder resources and initiator depth 1, retry count -r, the rest 0
            ConnParam param = new ConnParam(null, 1, 1, false, retries, 0, false, 0);
            times[CONNECT][0] = System.nanoTime();
            started = issue(conns, CONNECT, "failure rconnecting: ", c -> c.id.connect(param));
            await(CONNECT, started, "ESTABLISHED", destination, timeoutMs);
            times[CONNECT][1] = System.nanoTime();

            out.println("disconnecting");
            times[DISCONNECT][0] = System.nanoTime();
            started = 0;
            for (Conn c : conns) {
                if (c.error) {
                    continue;
                }
                c.start(DISCONNECT);
                c.id.disconnect();
                destroyQp(c);
                started++;
            }
            await(DISCONNECT, started, "DISCONNECTED", destination, timeoutMs);
            times[DISCONNECT][1] = System.nanoTime();
        } finally {
            // cmtime's cleanup_nodes, also after a failed step (then its time means nothing, and it is not printed)
            out.println("destroying id");
            times[DESTROY][0] = System.nanoTime();
            for (Conn c : conns) {
                c.start(DESTROY);
                if (c.id != null) {
                    if (c.recvChannel != null) { // a connection that failed after its QP was made
                        destroyQp(c);
                    }
                    c.id.close(); // rdma_destroy_id
                }
                c.end(DESTROY);
            }
            times[DESTROY][1] = System.nanoTime();
        }
        print(times, conns);
        for (Conn c : conns) {
            if (c.error) {
                return 1;
            }
        }
        return 0;
    }

    /**
     * One step's calls, as cmtime's loops make them: {@code call} on every connection without an error so far, timed
     * from its start; a call that throws prints {@code failure} and the reason and marks its connection failed.
     *
     * @return how many calls were made without an error (the events to wait for)
     */
    private int issue(Conn[] conns, int step, String failure, java.util.function.Consumer<Conn> call) {
        int started = 0;
        for (Conn c : conns) {
            if (c.error) {
                continue;
            }
            c.start(step);
            try {
                call.accept(c);
                started++;
            } catch (RuntimeException e) {
                out.println(failure + e.getMessage());
                c.error = true;
            }
        }
        return started;
    }

    /**
     * Handles events until {@code started} connections have completed {@code step} (with its event or an error).
     *
     * @throws IllegalStateException when they have not within the limit
     */
    private void await(int step, int started, String event, InetSocketAddress destination, int timeoutMs) {
        long deadline = System.nanoTime() + limitNanos;
        while (completed[step] < started) {
            CmEvent e = channel.poll();
            if (e != null) {
                onClientEvent(e, destination, timeoutMs);
                continue;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new IllegalStateException("MinimalCmtime: step '" + STEPS[step] + "': " + (started - completed[step])
                        + " of " + started + " connections had no " + event + " (nor an error event) within "
                        + TimeUnit.NANOSECONDS.toMillis(limitNanos) + " ms (server " + destination + ")");
            }
            poller.poll(Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)), x -> { });
        }
    }

    /** cmtime's {@code cma_handler} for the client's ids. */
    private void onClientEvent(CmEvent e, InetSocketAddress destination, int timeoutMs) {
        if (!(e.id().context() instanceof Conn c)) {
            return;
        }
        switch (e.type()) {
            case ADDR_RESOLVED -> {
                pd(c.id.device()); // librdmacm allocates the device's PD as it first sees the device
                done(c, RESOLVE_ADDR);
            }
            case ROUTE_RESOLVED -> done(c, RESOLVE_ROUTE);
            case ESTABLISHED -> done(c, CONNECT);
            case DISCONNECTED -> done(c, DISCONNECT);
            case ADDR_ERROR -> {
                if (c.retries-- > 0 && retry(() -> c.id.resolveAddr(null, destination, timeoutMs))) {
                    return;
                }
                out.println("RDMA_CM_EVENT_ADDR_ERROR, error: " + e.status());
                done(c, RESOLVE_ADDR);
                c.error = true;
            }
            case ROUTE_ERROR -> {
                if (c.retries-- > 0 && retry(() -> c.id.resolveRoute(timeoutMs))) {
                    return;
                }
                out.println("RDMA_CM_EVENT_ROUTE_ERROR, error: " + e.status());
                done(c, RESOLVE_ROUTE);
                c.error = true;
            }
            case CONNECT_ERROR, UNREACHABLE, REJECTED -> {
                out.println("event: RDMA_CM_EVENT_" + e.type() + ", error: " + e.status());
                done(c, CONNECT);
                c.error = true;
            }
            default -> { } // DEVICE_REMOVAL and the rest: cleanup happens at the end
        }
    }

    private void done(Conn c, int step) {
        c.end(step);
        completed[step]++;
    }

    private static boolean retry(Runnable r) {
        try {
            r.run();
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    private ProtectionDomain pd(DeviceContext device) {
        return pds.computeIfAbsent(device, DeviceContext::allocPd);
    }

    /**
     * {@code rdma_create_qp(id, NULL, &init_qp_attr)}: the device's PD, and as librdmacm's {@code ucma_create_cqs}
     * a completion channel and a CQ of {@code max_recv_wr} entries for receives, the same of {@code max_send_wr} for
     * sends, then the QP.
     */
    private void createQp(Conn c) {
        DeviceContext d = c.id.device();
        ProtectionDomain pd = pd(d);
        c.recvChannel = d.createCompletionChannel();
        c.recvCq = d.createCompletionQueue(CAP.maxRecvWr(), c.recvChannel, 0);
        c.sendChannel = d.createCompletionChannel();
        c.sendCq = d.createCompletionQueue(CAP.maxSendWr(), c.sendChannel, 0);
        c.id.createQp(pd, new QpInitAttr(c.sendCq, c.recvCq, null, CAP, QpType.RC, false, c));
    }

    /** {@code rdma_destroy_qp}: the QP, then as {@code ucma_destroy_cqs} the CQs and their channels. */
    private static void destroyQp(Conn c) {
        c.id.destroyQp();
        close(c.recvCq);
        close(c.sendCq);
        close(c.recvChannel);
        close(c.sendChannel);
        c.recvCq = null;
        c.sendCq = null;
        c.recvChannel = null;
        c.sendChannel = null;
    }

    private static void close(dev.ibex.cm.spi.ResourceTracker.Tracked r) {
        if (r != null) {
            r.close();
        }
    }

    /** cmtime's {@code show_perf}: per step the total, the slowest connection (ms), the fastest (us), us per conn. */
    private void print(long[][] times, Conn[] conns) {
        out.println("step              total ms     max ms     min us  us / conn");
        for (int s = 0; s < STEPS.length; s++) {
            double max = 0;
            double min = 999999999.;
            for (Conn c : conns) {
                if (c.times[s][0] != 0 && c.times[s][1] != 0) {
                    double us = (c.times[s][1] - c.times[s][0]) / 1000.0;
                    max = Math.max(max, us);
                    min = Math.min(min, us);
                }
            }
            double us = (times[s][1] - times[s][0]) / 1000.0;
            out.printf(Locale.ROOT, "%-13s: %11.2f%11.2f%11.2f%11.2f%n", STEPS[s], us / 1000., max / 1000., min,
                    us / conns.length);
        }
        out.flush();
    }

    /**
     * cmtime's server, the listening half: an id bound to {@code address}, listening with backlog 0 (the provider's
     * default).
     */
    void listen(InetSocketAddress address) {
        CmId listener = channel.createId(PortSpace.TCP, null);
        listener.bind(address);
        DeviceContext d = listener.device();
        if (d != null) { // bound to a device's address: librdmacm has allocated its PD now
            pd(d);
        }
        listener.listen(0);
        out.println("cmtime: listening on " + address);
        out.flush();
    }

    /**
     * cmtime's server, the serving half: handles events on this thread until {@link #stop()} is called from another
     * (the C server runs until killed). A connect request gets a QP made as the client's are and
     * {@code rdma_accept(id, NULL)}; a request that fails is rejected and destroyed; DISCONNECTED gets
     * {@code rdma_disconnect}, {@code rdma_destroy_qp} and {@code rdma_destroy_id}.
     */
    void serve() {
        while (!stopped) {
            CmEvent e = channel.poll();
            if (e == null) {
                poller.poll(TimeUnit.MILLISECONDS.toNanos(100), x -> { });
                continue;
            }
            switch (e.type()) {
                case CONNECT_REQUEST -> {
                    Conn c = new Conn();
                    c.id = e.id();
                    c.id.context(c);
                    try {
                        createQp(c);
                        c.id.accept(null);
                    } catch (RuntimeException x) {
                        out.println("failing connection request: " + x.getMessage());
                        try {
                            c.id.reject(null);
                        } catch (RuntimeException ignored) {
                            // destroyed below all the same
                        }
                        destroyQp(c);
                        c.id.close();
                    }
                }
                case DISCONNECTED -> {
                    if (e.id().context() instanceof Conn c) {
                        c.id.disconnect();
                        destroyQp(c);
                        c.id.close();
                    }
                }
                default -> { } // ESTABLISHED and the rest: nothing to do, as in cmtime
            }
        }
    }

    /** Makes {@link #serve()} return (from another thread; it returns within a poll). */
    void stop() {
        stopped = true;
        poller.wakeup();
    }

    /** Closes the fabric, and with it every id, QP, CQ and channel left (on the thread that used them). */
    @Override
    public void close() {
        fabric.close();
    }
}
