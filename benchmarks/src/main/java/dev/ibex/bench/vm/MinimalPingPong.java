package dev.ibex.bench.vm;

import dev.ibex.cm.spi.Access;
import dev.ibex.cm.spi.CmEvent;
import dev.ibex.cm.spi.CmEventType;
import dev.ibex.cm.spi.CmId;
import dev.ibex.cm.spi.CompletionBatch;
import dev.ibex.cm.spi.CompletionChannel;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.ConnParam;
import dev.ibex.cm.spi.EventChannel;
import dev.ibex.cm.spi.Fabric;
import dev.ibex.cm.spi.MemoryRegion;
import dev.ibex.cm.spi.Poller;
import dev.ibex.cm.spi.PortSpace;
import dev.ibex.cm.spi.ProtectionDomain;
import dev.ibex.cm.spi.ProviderConfig;
import dev.ibex.cm.spi.Providers;
import dev.ibex.cm.spi.QpCap;
import dev.ibex.cm.spi.QpInitAttr;
import dev.ibex.cm.spi.QpType;
import dev.ibex.cm.spi.QueuePair;
import dev.ibex.cm.spi.RecvBatch;
import dev.ibex.cm.spi.SendBatch;
import dev.ibex.cm.spi.SendFlags;
import dev.ibex.cm.spi.SharedReceiveQueue;
import dev.ibex.cm.spi.WrOpcode;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The latency floor of Java without Ibex's loops: {@code benchmarks/src/main/c/pingpong.c} call for call, through
 * the rdma-core provider's SPI (FFM downcalls, no event loop, no endpoint): connect through the CM, then the client
 * posts a 64 B SEND, spins on {@link CompletionQueue#poll} until the echo's receive completes, reposts the receive
 * and repeats. Beside the C program in one boot ({@link VmBench}'s {@code floor} workload) it tells what the guest
 * costs a JVM doing the same calls from what Ibex's layers cost. Runs {@value #ROUNDS} rounds and reports the last
 * (the JIT's warm-up), and the cost of one empty poll. With {@code events} it waits for CQ events once the CQ is
 * empty (the completion channel in the poller, ack, re-arm, poll again), as {@code ib_send_lat -e} and Ibex's loop do.
 *
 * <p>By default it posts as {@code pingpong.c} does: a SEND from the registered buffer, receives on the QP's own
 * receive queue. Two switches, each on its own, post as Ibex's connections do (cm-core's {@code SendQueue} and
 * {@code ReceiveMode.SHARED}): {@code -Dibex.bench.mini.inline=true} sends inline ({@code IBV_SEND_INLINE}, the QP
 * created with {@code max_inline_data} of the message size) and {@code -Dibex.bench.mini.srq=true} takes the
 * receives from a shared receive queue on the PD, reposting them with {@code ibv_post_srq_recv} (one per message, as
 * here on the QP's queue). Both sides print them first: {@code pingpong settings: minimal, inline SENDs B, SRQ
 * receives B}.
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED [-Dibex.bench.mini.inline=true] [-Dibex.bench.mini.srq=true] \
 *     -cp benchmarks.jar dev.ibex.bench.vm.MinimalPingPong server|client &lt;ip&gt; &lt;port&gt; &lt;iterations&gt; &lt;size&gt; \
 *     [events]
 * </pre>
 */
public final class MinimalPingPong {
    /** Runs of {@code iterations} round trips ({@code -Dibex.bench.runs}, default 3); the last is reported. */
    static final int ROUNDS = Math.max(1, Integer.getInteger("ibex.bench.runs", 3)); // 0 would report no run
    /**
     * How long the server waits for the client's CONNECT_REQUEST: the client is a JVM started after the server listens,
     * and a C2-only one under TCG took 50-60 s to reach its connect (30 s was too short: the server was gone and the
     * client's request was REJECTED with the IB CM's reason 8, no listener).
     */
    static final long REQUEST_WAIT_SECONDS = 240;
    /** Whether SENDs go inline ({@code -Dibex.bench.mini.inline=true}; default false, as {@code pingpong.c}). */
    static final boolean INLINE = Boolean.getBoolean("ibex.bench.mini.inline");
    /** Whether receives come from an SRQ ({@code -Dibex.bench.mini.srq=true}; default false: the QP's own queue). */
    static final boolean SRQ = Boolean.getBoolean("ibex.bench.mini.srq");
    /**
     * Pages of memory each side touches once per round trip ({@code -Dibex.bench.mini.touchPages}, default 0): a
     * working set like a JVM event loop's (Ibex's own is not measured), to tell the cost qemu TCG's software TLB puts
     * on a larger footprint (the kernel's work in {@code ibv_post_send} included) from work Ibex does
     * (docs/benchmarks.md).
     */
    static final int TOUCH_PAGES = Integer.getInteger("ibex.bench.mini.touchPages", 0);
    /**
     * A look at the poller without waiting every this many empty CQ polls ({@code -Dibex.bench.mini.look}, default 0:
     * never), like Ibex's spinning loop every {@code cqPollSpinLookInterval} rounds; an empty poll is quicker than a
     * loop's round, so at the same count this program looks more often.
     */
    static final int LOOK = Integer.getInteger("ibex.bench.mini.look", 0);
    private static final int SPINS = 1_000_000;
    private static final long RECV = 1;
    private static final long SEND = 2;

    private final Fabric fabric;
    private final EventChannel channel;
    private final Poller poller;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment buffer = arena.allocate(2 * 4096, 4096);
    private final CompletionBatch completions = CompletionBatch.allocate(arena, 4);
    private final SendBatch sends = SendBatch.allocate(arena, 1, 1);
    private final RecvBatch recvs = RecvBatch.allocate(arena, 1, 1);
    private ProtectionDomain pd;
    private CompletionQueue cq;
    private MemoryRegion mr;
    /** Null: the receives go to the QP's own queue. */
    SharedReceiveQueue srq;
    QueuePair qp;
    private final boolean inline;
    private final boolean shared;
    private final PrintStream out;

    /** Null: busy-poll. */
    private CompletionChannel events;

    /**
     * Opens a fabric of {@code provider} with an event channel and a poller on it.
     *
     * @param provider the provider's name ("rdma-core"; "soft-roce" in tests)
     * @param inline whether SENDs go inline
     * @param shared whether receives come from an SRQ
     * @param out where the lines go
     */
    MinimalPingPong(String provider, ProviderConfig config, boolean inline, boolean shared, PrintStream out) {
        this.inline = inline;
        this.shared = shared;
        this.out = out;
        fabric = Providers.byName(provider).orElseThrow(() -> new IllegalArgumentException("no provider " + provider))
                .open(config);
        channel = fabric.createEventChannel();
        poller = fabric.createPoller();
        poller.register(channel, channel);
    }

    /**
     * Runs one side.
     *
     * @param args {@code server|client <ip> <port> <iterations> <size>}
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 5 && !(args.length == 6 && args[5].equals("events"))) {
            System.err.println("usage: MinimalPingPong server|client <ip> <port> <iterations> <size> [events]");
            System.exit(2);
        }
        InetSocketAddress address = new InetSocketAddress(InetAddress.getByName(args[1]), Integer.parseInt(args[2]));
        int iterations = Integer.parseInt(args[3]);
        int size = Integer.parseInt(args[4]);
        System.out.println(settingsLine(INLINE, SRQ) + footprintSettings(TOUCH_PAGES, LOOK));
        MinimalPingPong p = new MinimalPingPong("rdma-core", ProviderConfig.DEFAULT, INLINE, SRQ, System.out);
        p.useEvents = args.length == 6;
        if (args[0].equals("server")) {
            p.serve(address, iterations * ROUNDS, size);
        } else {
            p.ping(address, iterations, size);
        }
        System.exit(0);
    }

    /** {@return the line naming the switches, printed first ({@code busy-pairs.sh} repeats it)} */
    static String settingsLine(boolean inline, boolean shared) {
        return "pingpong settings: minimal, inline SENDs " + inline + ", SRQ receives " + shared;
    }

    /** What the settings line adds for {@link #TOUCH_PAGES} and {@link #LOOK}: nothing when both are off. */
    static String footprintSettings(int touchPages, int look) {
        return (touchPages > 0 ? ", touching " + touchPages + " pages per round trip" : "")
                + (look > 0 ? ", a look at the poller every " + look + " empty polls" : "");
    }

    /**
     * The QP's sizes: 16 sends and 16 receives of one SGE, no inline data (as {@code pingpong.c}); inline, room for a
     * message of {@code size} bytes; with an SRQ no receive queue of its own (as cm-core asks for).
     */
    static QpCap cap(int size, boolean inline, boolean shared) {
        return new QpCap(16, shared ? 0 : 16, 1, 1, inline ? size : 0);
    }

    /** The SEND's flags: signalled, and inline when {@code inline}. */
    static int sendFlags(boolean inline) {
        return inline ? SendFlags.SIGNALED | SendFlags.INLINE : SendFlags.SIGNALED;
    }

    private CmEvent expect(CmEventType type) {
        return expect(type, 30);
    }

    private CmEvent expect(CmEventType type, long seconds) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < deadline) {
            CmEvent e = channel.poll();
            if (e != null) {
                if (e.type() != type) {
                    throw new IllegalStateException("expected " + type + ", got " + e.type() + " (status " + e.status()
                            + ")");
                }
                return e;
            }
            poller.poll(TimeUnit.MILLISECONDS.toNanos(100), x -> { });
        }
        throw new IllegalStateException("no " + type + " within " + seconds + " s");
    }

    private boolean useEvents;

    private void setup(CmId id, int size) {
        pd = id.device().allocPd();
        if (useEvents) {
            events = id.device().createCompletionChannel();
            poller.register(events, events);
        }
        cq = id.device().createCompletionQueue(64, events, 0);
        if (useEvents) {
            cq.requestNotify(false);
        }
        mr = pd.registerMemory(buffer, EnumSet.of(Access.LOCAL_WRITE));
        if (shared) {
            srq = pd.createSharedReceiveQueue(16, 1, 0);
        }
        qp = id.createQp(pd, new QpInitAttr(cq, cq, srq, cap(size, inline, shared), QpType.RC, true, null));
        recvs.wrId(0, RECV).single(0, buffer.address(), size, mr.lkey());
        sends.wrId(0, SEND).opcode(0, WrOpcode.SEND).flags(0, sendFlags(inline))
                .single(0, buffer.address() + 4096, size, mr.lkey());
        postRecv();
    }

    /** Posts the one receive: to the SRQ ({@code ibv_post_srq_recv}) or to the QP ({@code ibv_post_recv}). */
    private void postRecv() {
        touch();
        if (srq != null) {
            srq.postRecv(recvs, 1);
        } else {
            qp.postRecv(recvs, 1);
        }
    }

    void serve(InetSocketAddress address, int iterations, int size) {
        CmId listener = channel.createId(PortSpace.TCP, null);
        listener.bind(address);
        listener.listen(1);
        out.println("pingpong: listening");
        CmId id = expect(CmEventType.CONNECT_REQUEST, REQUEST_WAIT_SECONDS).id();
        setup(id, size);
        id.accept(ConnParam.DEFAULT);
        expect(CmEventType.ESTABLISHED);
        // a send's completion waits for the client's ACK, which may come after its next SEND: count both
        for (int i = 0; i < iterations; i++) {
            while (received <= i) {
                count();
            }
            postRecv();
            qp.postSend(sends, 1);
        }
        while (sent < iterations) {
            count();
        }
        expect(CmEventType.DISCONNECTED);
        fabric.close();
    }

    void ping(InetSocketAddress address, int iterations, int size) {
        CmId id = channel.createId(PortSpace.TCP, null);
        id.resolveAddr(null, address, 2000);
        expect(CmEventType.ADDR_RESOLVED);
        id.resolveRoute(2000);
        expect(CmEventType.ROUTE_RESOLVED);
        setup(id, size);
        id.connect(ConnParam.DEFAULT);
        expect(CmEventType.ESTABLISHED);
        long[] rtt = new long[iterations];
        for (int r = 0; r < ROUNDS; r++) {
            long compiling = PingPongJvm.compileMillis();
            for (int i = 0; i < iterations; i++) {
                long t0 = System.nanoTime();
                qp.postSend(sends, 1);
                awaitBoth();
                postRecv();
                rtt[i] = System.nanoTime() - t0;
            }
            long[] sorted = rtt.clone();
            Arrays.sort(sorted);
            out.println(runLine(r + 1, ROUNDS, sorted[iterations / 2], sorted[(int) (iterations * 0.99)],
                    PingPongJvm.compileMillis() - compiling));
        }
        long t0 = System.nanoTime();
        for (int i = 0; i < SPINS; i++) {
            if (cq.poll(completions) != 0) {
                throw new IllegalStateException("spin: the CQ was not empty");
            }
        }
        double spin = (double) (System.nanoTime() - t0) / SPINS;
        Arrays.sort(rtt);
        out.printf(Locale.ROOT, "pingpong: iterations %d, size %d, one-way typical %.2f us, p99 %.2f us, "
                + "empty poll %.1f ns%n", iterations, size, rtt[iterations / 2] / 2000.0,
                rtt[(int) (iterations * 0.99)] / 2000.0, spin);
        id.disconnect();
        expect(CmEventType.DISCONNECTED);
        fabric.close();
    }

    private int received;
    private int sent;
    private final MemorySegment pages = TOUCH_PAGES > 0 ? Arena.ofAuto().allocate(TOUCH_PAGES * 4096L, 4096)
            : MemorySegment.NULL;
    private long touched;
    private int untilLook = LOOK;

    private void touch() {
        touch(pages, TOUCH_PAGES, touched++);
    }

    /**
     * Touches {@code n} pages of {@code pages}: one read and one write of a long in each, at a place that moves with
     * {@code round} (so the same cache line is not hit twice in a row).
     */
    static void touch(MemorySegment pages, int n, long round) {
        long within = (round & 511) * 8;
        for (int p = 0; p < n; p++) {
            long at = p * 4096L + within;
            pages.set(ValueLayout.JAVA_LONG, at, pages.get(ValueLayout.JAVA_LONG, at) + 1);
        }
    }

    /**
     * A measured run's line: {@code pingpong: run R of N, typical X us, p99 Y us, compiling Z ms} (one-way: the round
     * trip's nanoseconds / 2; Z: what this JVM's JIT compiled meanwhile). Not the figures' line
     * ({@link PingPongProcesses#figures} reads {@code one-way typical}), which follows it.
     */
    static String runLine(int run, int runs, double p50Nanos, double p99Nanos, long compileMillis) {
        return String.format(Locale.ROOT, "pingpong: run %d of %d, typical %.2f us, p99 %.2f us, compiling %d ms", run,
                runs, p50Nanos / 2e3, p99Nanos / 2e3, compileMillis);
    }

    /** Polls once, adding what completed to the receive and send counts. */
    private void count() {
        int n = cq.poll(completions);
        if (n == 0) {
            waitForEvent();
            if (LOOK > 0 && --untilLook == 0) {
                untilLook = LOOK;
                poller.poll(0, x -> { });
            }
        }
        for (int i = 0; i < n; i++) {
            check(i);
            if (completions.wrId(i) == RECV) {
                received++;
            } else {
                sent++;
            }
        }
    }

    /** Spins until this round's receive and send both completed. */
    private void awaitBoth() {
        int wantReceived = received + 1;
        int wantSent = sent + 1;
        while (received < wantReceived || sent < wantSent) {
            count();
        }
    }

    /**
     * In events mode, the CQ being empty and armed: waits for its event, acknowledges it and re-arms (the caller polls
     * again, so a completion that came before the re-arm is not missed).
     */
    private void waitForEvent() {
        if (events == null) {
            return;
        }
        CompletionQueue q;
        while ((q = events.poll()) == null) {
            poller.poll(TimeUnit.SECONDS.toNanos(1), x -> { });
        }
        q.ackEvents(1);
        q.requestNotify(false);
    }

    private void check(int i) {
        if (!completions.isSuccess(i)) {
            throw new IllegalStateException("completion " + completions.status(i));
        }
    }
}
