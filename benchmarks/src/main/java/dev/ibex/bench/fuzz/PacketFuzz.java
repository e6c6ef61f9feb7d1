package dev.ibex.bench.fuzz;

import dev.ibex.bench.faults.EchoClient;
import dev.ibex.bench.faults.StreamServer;
import dev.ibex.bench.faults.LoggedFailures;
import dev.ibex.bench.faults.SoftNet;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.endpoint.Connection;
import dev.ibex.cm.endpoint.ConnectionFailedException;
import dev.ibex.cm.endpoint.ConnectionOptions;
import dev.ibex.cm.endpoint.ListenOptions;
import dev.ibex.softroce.SoftFabric;
import dev.ibex.softroce.cm.RdmaCm;
import dev.ibex.softroce.cm.RdmaCmFactory;
import dev.ibex.softroce.transport.DropCounts;
import dev.ibex.softroce.transport.SoftDevice;
import dev.ibex.softroce.transport.SoftQueuePair;
import dev.ibex.softroce.wire.MalformedPacketException;
import dev.ibex.softroce.wire.RocePacket;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Objects;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;

/**
 * Hostile packets against live soft-roce connections. A target connection and a bystander next to it (same devices,
 * same path) carry sequenced echo streams ({@link EchoClient}/{@link StreamServer}); a seeded generator
 * ({@link HostilePackets}) sends malformed and forged packets of every {@link Kind} along every {@link Route} to either
 * end of the target, and off the path to either end of the bystander too. Every {@value #BATCH} packets it checks:
 *
 * <ul>
 *   <li>no exception reached an uncaught handler or the stack's logs ({@link LoggedFailures});
 *   <li>every echo came back intact, in order, exactly once, on both connections;
 *   <li>neither stream stalled for longer than the plan's bound while its connection was up;
 *   <li>the bystander is up, and the target is up unless a packet on its path with a defect the IBA makes fatal
 *       ended it, with a typed error (it is then reconnected and the run goes on);
 *   <li>in batches of off-path packets only, the devices counted exactly one drop per off-path datagram that
 *       arrived (seen by a receive-side observer), the CMs one dropped message per forged CM message with live IDs
 *       from a stranger, and the target's QPs one invalid response per response forged ahead of every PSN sent.
 * </ul>
 *
 * Each problem is an {@link Escape} with the seed and packet count that replay it. The access guard's per-address
 * limit is raised for the run: its job is to cut off an address that keeps guessing keys, and a fuzzer that forges
 * the peer's exact path would otherwise get that address (and so the bystander, which shares it) blocked — which the
 * guard's own tests cover.
 *
 * <p>Threading: {@link #run} drives everything from the calling thread.
 */
public final class PacketFuzz implements AutoCloseable {
    static final int BATCH = 1024;
    private static final int MARKER_LENGTH = 11;
    private static final int MARKER_MAGIC = 0x58454249; // IBEX
    private static final int CM_PORT = 7471;
    private static final int BYSTANDER = 1;
    private static final int MAX = 8192;
    private static final Route[] ROUTES = Route.values();
    private static final int[] ROUTE_WEIGHT = {25, 20, 5, 30, 20}; // FOREIGN, OTHER_PORT, FOREIGN_CM, WIRE, DELIVER

    /**
     * What to run.
     *
     * @param seed the generator's seed (printed with every escape)
     * @param packets how many hostile packets
     * @param rate packets per second at most (the receive threads must keep up with the traffic too)
     * @param lethalOneIn on the path, a kind that may end the target is kept once in this many draws
     * @param stallBound how long a stream may make no progress while its connection is up
     */
    public record Plan(long seed, long packets, int rate, int lethalOneIn, Duration stallBound) {
        public static Plan of(long seed, long packets) {
            return new Plan(seed, packets, 20_000, 400, Duration.ofSeconds(30));
        }
    }

    /**
     * What a run did and found.
     *
     * @param seed the seed
     * @param packets packets injected
     * @param byRoute packets per route
     * @param byKind packets per kind
     * @param offPathArrived off-path datagrams that reached a device (the kernel may drop some)
     * @param drops what the devices counted (malformed, unknown QP, off path, blocked), both hosts
     * @param cmOffPath CM messages the CMs dropped for not coming from their connection's peer
     * @param invalidResponses responses the target QPs dropped for a PSN never sent
     * @param targetEnds how target connections ended, by reason (each was reconnected)
     * @param echoes echoes the two streams completed
     * @param escapes what escaped
     * @param seconds how long the run took
     */
    public record Result(long seed, long packets, Map<Route, Long> byRoute, Map<Kind, Long> byKind,
            long offPathArrived, DropCounts drops, long cmOffPath, long invalidResponses,
            Map<String, Integer> targetEnds, long echoes, List<Escape> escapes, double seconds) {

        public String summary() {
            return String.format(Locale.ROOT, "seed %d: %,d packets in %.1f s (%s); %,d off-path arrived, devices "
                    + "dropped %s, CM dropped %,d off-path messages, target QPs dropped %,d invalid responses; target "
                    + "ended %s; %,d echoes; %d escape(s)", seed, packets, seconds, byRoute, offPathArrived, drops,
                    cmOffPath, invalidResponses, targetEnds, echoes, escapes.size());
        }
    }

    private final Plan plan;
    private final PrintStream log;
    private final RandomGenerator random;
    private final HostilePackets forge;
    private final SoftNet net;
    private final LoggedFailures logged;
    private final StreamServer server;
    private final EchoClient bystander;
    private final ConnectionOptions options = ConnectionOptions.DEFAULT.withConnectTimeout(Duration.ofSeconds(30));
    private final DatagramChannel foreign;
    private final DatagramChannel foreignCm;
    private final DatagramChannel[] otherPort = new DatagramChannel[2]; // [victim on client, victim on server]
    private final int port;
    private final int strangerIp = SoftNet.ip(SoftNet.STRANGER);
    private final AtomicLongArray arrived = new AtomicLongArray(2); // off-path datagrams seen, [client, server]
    private final java.util.concurrent.atomic.AtomicIntegerArray markerSeen =
            new java.util.concurrent.atomic.AtomicIntegerArray(2);
    private int markerSeq;
    private final ByteBuffer out = ByteBuffer.allocateDirect(HostilePackets.MAX_PACKET);
    private final MemorySegment buf = MemorySegment.ofBuffer(out);
    private final RocePacket parsed = new RocePacket();
    private final List<Escape> escapes = new ArrayList<>();
    private final long[] byRoute = new long[Route.values().length];
    private final long[] byKind = new long[Kind.values().length];
    private final Map<String, Integer> targetEnds = new TreeMap<>();

    private EchoClient target;
    private int nextStream = 2;
    private long injected;
    private boolean lethalSent; // since the target came up
    private boolean lethalInBatch;
    private boolean onPathCmSent;
    // per batch
    private boolean offPathOnly;
    private boolean reconnected;
    private final long[] arrivedAtBatch = new long[2];
    private final long[] dropsAtBatch = new long[2];
    private final DropCounts[] countsAtBatch = new DropCounts[2];
    // CM messages and invalid responses are counted cumulatively (one may be counted a batch late): the CMs' since
    // the start, the target QPs' since the target came up; what a batch cannot vouch for only widens the range
    private final long[] cmBase = new long[2];
    private final long[] cmExpected = new long[2];
    private final long[] cmMaybe = new long[2];
    private final long[] cmExpectedInBatch = new long[2];
    private final long[] cmMaybeInBatch = new long[2];
    private SoftQueuePair[] targetQps = new SoftQueuePair[2];
    private final long[] invalidBase = new long[2];
    private final long[] invalidExpected = new long[2];
    private final long[] invalidMaybe = new long[2];
    private final long[] invalidExpectedInBatch = new long[2];
    private final long[] invalidMaybeInBatch = new long[2];
    private long invalidTotal;
    private long echoesOfEndedTargets;
    private int uncaughtReported;
    private int loggedReported;

    private PacketFuzz(Plan plan, PrintStream log) {
        this.plan = plan;
        this.log = log;
        this.random = RandomGeneratorFactory.<RandomGenerator>of("L64X128MixRandom").create(plan.seed());
        this.forge = new HostilePackets(random);
        this.logged = LoggedFailures.install();
        this.net = SoftNet.open(SoftNet.Options.DEFAULT.withBufferSize(MAX));
        this.port = net.udpPort();
        try {
            for (SoftDevice d : List.of(net.clientDevice(), net.serverDevice())) {
                d.accessGuard().limits(Integer.MAX_VALUE, Duration.ofSeconds(1), Duration.ZERO);
            }
            observeOffPath(net.clientFabric(), 0);
            observeOffPath(net.serverFabric(), 1);
            foreign = bind(SoftNet.STRANGER, 0);
            foreignCm = bindOrNull(SoftNet.STRANGER, port);
            otherPort[0] = bind(SoftNet.SERVER, 0); // the client end's peer is the server
            otherPort[1] = bind(SoftNet.CLIENT, 0);
            server = StreamServer.listen(net.server().next(), SoftNet.serverAddress(CM_PORT),
                    ListenOptions.DEFAULT.withConnection(options), MAX);
            bystander = connect(BYSTANDER);
            target = connect(nextStream++);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** Runs {@code plan}, printing progress to {@code log}. */
    public static Result run(Plan plan, PrintStream log) {
        long t0 = System.nanoTime();
        try (PacketFuzz f = new PacketFuzz(plan, log)) {
            f.fuzz();
            f.closeStreams();
            return f.result((System.nanoTime() - t0) / 1e9);
        }
    }

    /** Counts datagrams that reach {@code fabric} from an off-path source (a stranger, or the peer's other port). */
    private void observeOffPath(SoftFabric fabric, int side) {
        fabric.faults().onReceive().dropIf((srcIp, srcPort, dstIp, dstPort, payload, length) -> {
            if (srcPort != port) { // every device sends from the fabric's port: anything else is off the path
                arrived.incrementAndGet(side);
                if (length == MARKER_LENGTH && payload.get(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED, 0)
                        == MARKER_MAGIC) {
                    markerSeen.set(side, payload.get(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED, 4));
                }
            }
            return false;
        });
    }

    /**
     * Sends a marker (a datagram too short to be RoCE, so dropped as malformed like any off-path garbage) to both
     * devices and waits until each has read it: a socket is read in order, so everything sent before it has been
     * dispatched and counted, however far behind a loaded machine left the receive threads.
     */
    private void flushReceivers() throws IOException {
        int seq = ++markerSeq;
        ByteBuffer m = ByteBuffer.allocate(MARKER_LENGTH).order(java.nio.ByteOrder.nativeOrder());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        long resend = 0;
        while (markerSeen.get(0) != seq || markerSeen.get(1) != seq) {
            if (System.nanoTime() - resend > TimeUnit.MILLISECONDS.toNanos(500)) { // a marker may be lost too
                for (String ip : new String[] {SoftNet.CLIENT, SoftNet.SERVER}) {
                    m.clear();
                    m.putInt(MARKER_MAGIC).putInt(seq).put((byte) 0).put((byte) 0).put((byte) 0).flip();
                    foreign.send(m, new InetSocketAddress(ip, port));
                }
                resend = System.nanoTime();
            }
            if (System.nanoTime() > deadline) {
                log.println("fuzz: a receive thread did not read its marker within 10 s");
                return;
            }
            pause(2);
        }
    }

    private static DatagramChannel bind(String ip, int port) {
        try {
            return DatagramChannel.open().bind(new InetSocketAddress(ip, port));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot bind UDP " + ip + ":" + port, e);
        }
    }

    private DatagramChannel bindOrNull(String ip, int p) {
        try {
            return DatagramChannel.open().bind(new InetSocketAddress(ip, p));
        } catch (IOException e) {
            log.println("fuzz: no " + Route.FOREIGN_CM_PORT + " route (" + ip + ":" + p + " is taken: " + e + ")");
            return null;
        }
    }

    private EchoClient connect(int stream) {
        EchoClient c = (EchoClient) new EchoClient(stream, 8, MAX, Long.MAX_VALUE).connect(net.client().next(),
                SoftNet.serverAddress(CM_PORT), options);
        try {
            c.established().get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("stream " + stream + " did not connect: " + e, e);
        }
        return c;
    }

    // ---- the run --------------------------------------------------------------------------------------------

    private void fuzz() {
        long start = System.nanoTime();
        for (int side = 0; side < 2; side++) {
            cmBase[side] = cm(side).ibCm().offPathMessages();
        }
        startBatch();
        for (injected = 0; injected < plan.packets(); injected++) {
            injectOne();
            if ((injected + 1) % BATCH == 0) {
                check();
                startBatch();
            }
            if ((injected & 63) == 63) {
                long due = start + (long) ((injected + 1) * 1e9 / plan.rate());
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                }
            }
        }
        check();
        afterwards();
    }

    private void startBatch() {
        offPathOnly = (injected / BATCH) % 3 == 0; // every third batch: exact accounting of off-path drops
        reconnected = false;
        lethalInBatch = false;
        for (int side = 0; side < 2; side++) {
            arrivedAtBatch[side] = arrived.get(side);
            dropsAtBatch[side] = drops(device(side));
            countsAtBatch[side] = device(side).dropCounts();
            cmExpectedInBatch[side] = 0;
            cmMaybeInBatch[side] = 0;
            invalidExpectedInBatch[side] = 0;
            invalidMaybeInBatch[side] = 0;
        }
        SoftQueuePair[] qps = qpsOf(target);
        for (int side = 0; side < 2; side++) {
            if (qps[side] != targetQps[side]) { // a new target: its QPs count from zero
                targetQps[side] = qps[side];
                invalidBase[side] = qps[side] == null ? 0 : qps[side].invalidResponses();
                invalidExpected[side] = 0;
                invalidMaybe[side] = 0;
            }
        }
    }

    private void injectOne() {
        Route route = pickRoute();
        Kind kind = pickKind(route);
        boolean toBystander = !route.onPath() && random.nextInt(4) == 0;
        int side = random.nextInt(2); // 0: the client end, 1: the server end
        Connection c = end(toBystander ? bystander : target, side);
        Victim v = Victim.of(c, port);
        if (v == null) {
            return; // the target is going down; the next check reconnects it
        }
        byRoute[route.ordinal()]++;
        byKind[kind.ordinal()]++;
        try {
            switch (route) {
                case FOREIGN_ADDRESS -> send(foreign, strangerIp, kind, v);
                case PEER_OTHER_PORT -> send(otherPort[side], v.peerIp(), kind, v);
                case FOREIGN_CM_PORT -> {
                    send(foreignCm, strangerIp, kind, v);
                    if (forge.namesConnection() && v.localCommId() != 0) {
                        cmExpectedInBatch[side]++;
                    } else {
                        cmMaybeInBatch[side]++; // a fuzzed MAD may still name the connection
                    }
                }
                case ON_PATH_WIRE -> wire(kind, v, side);
                case ON_PATH_DELIVER -> deliver(kind, v);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (route.onPath()) {
            lethalSent |= kind.lethalOnPath();
            lethalInBatch |= kind.lethalOnPath();
            onPathCmSent |= kind == Kind.CM_FORGED || kind == Kind.MAD_FUZZED;
            if (forge.aheadRequest()) {
                invalidMaybeInBatch[1 - side]++; // its NAK may name a PSN the other end has not sent yet
            }
            if (forge.aheadResponse()) {
                if (forge.damaged()) {
                    invalidMaybeInBatch[side]++;
                } else {
                    invalidExpectedInBatch[side]++;
                }
            }
        }
    }

    private Route pickRoute() {
        if (offPathOnly) {
            return random.nextInt(10) == 0 && foreignCm != null ? Route.FOREIGN_CM_PORT
                    : random.nextBoolean() ? Route.FOREIGN_ADDRESS : Route.PEER_OTHER_PORT;
        }
        int n = random.nextInt(100);
        for (int i = 0; i < ROUTES.length; i++) {
            n -= ROUTE_WEIGHT[i];
            if (n < 0) {
                return ROUTES[i] == Route.FOREIGN_CM_PORT && foreignCm == null ? Route.FOREIGN_ADDRESS : ROUTES[i];
            }
        }
        return Route.FOREIGN_ADDRESS;
    }

    private Kind pickKind(Route route) {
        Kind[] kinds = Kind.values();
        for (;;) {
            Kind k = kinds[random.nextInt(kinds.length)];
            if (!k.takes(route)) {
                continue;
            }
            if (route.onPath() && k.lethalOnPath() && random.nextInt(plan.lethalOneIn()) != 0) {
                continue;
            }
            return k;
        }
    }

    private void send(DatagramChannel ch, int srcIp, Kind kind, Victim v) throws IOException {
        int srcPort = ((InetSocketAddress) ch.getLocalAddress()).getPort();
        int n = forge.write(kind, v, srcIp, srcPort, buf);
        out.clear().limit(n);
        ch.send(out, new InetSocketAddress(dev.ibex.softroce.wire.Ipv4.toInetAddress(v.localIp()), port));
    }

    /** From the peer's own device link: the exact source address and port, the victim's whole receive path. */
    private void wire(Kind kind, Victim v, int side) {
        int n = forge.write(kind, v, v.peerIp(), port, buf);
        out.clear().limit(n);
        SoftDevice peer = side == 0 ? net.serverDevice() : net.clientDevice();
        peer.link(0).send(out, v.localIp(), new InetSocketAddress(dev.ibex.softroce.wire.Ipv4.toInetAddress(
                v.localIp()), port));
    }

    private void deliver(Kind kind, Victim v) {
        int n = forge.write(kind, v, v.peerIp(), port, buf);
        try {
            parsed.parseIpv4(buf, 0, n, v.peerIp(), v.localIp(), port, port);
        } catch (MalformedPacketException e) {
            throw new IllegalStateException("the fuzzer built an unparseable " + kind + " packet for delivery: " + e);
        }
        v.qp().deliver(parsed, v.peerIp(), port, v.localIp());
    }

    // ---- checks ---------------------------------------------------------------------------------------------

    private void check() {
        try {
            flushReceivers();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        settle();
        // a target that ended during the batch took its IDs and QPs with it: what was forged for it is not countable
        boolean steady = !reconnected && !ended(target);
        for (int side = 0; side < 2; side++) {
            if (steady) {
                cmExpected[side] += cmExpectedInBatch[side];
                cmMaybe[side] += cmMaybeInBatch[side];
            } else {
                cmMaybe[side] += cmExpectedInBatch[side] + cmMaybeInBatch[side];
            }
            if (steady && !lethalInBatch) {
                invalidExpected[side] += invalidExpectedInBatch[side];
                invalidMaybe[side] += invalidMaybeInBatch[side];
            } else {
                invalidMaybe[side] += invalidExpectedInBatch[side] + invalidMaybeInBatch[side];
            }
        }
        // the counters may trail the observers (a MAD waits for the CM's lock, a response for the send task)
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        List<String> wrong;
        do {
            wrong = miscounts(steady);
        } while (!wrong.isEmpty() && System.nanoTime() < deadline && pause(20));
        for (String w : wrong) {
            escape(Escape.Type.UNCOUNTED, w);
        }
        checkLogs();
        checkStream(bystander, true);
        checkStream(target, false);
    }

    /** What the counters got wrong in this batch, if anything. */
    private List<String> miscounts(boolean steady) {
        List<String> wrong = new ArrayList<>();
        for (int side = 0; side < 2; side++) {
            String host = side == 0 ? "client" : "server";
            long came = arrived.get(side) - arrivedAtBatch[side];
            long dropped = drops(device(side)) - dropsAtBatch[side];
            if (offPathOnly && steady && dropped != came) {
                DropCounts now = device(side).dropCounts();
                DropCounts was = countsAtBatch[side];
                wrong.add(host + " device: " + came + " off-path datagrams arrived in the batch, " + dropped
                        + " drops counted (malformed " + (now.malformed() - was.malformed()) + ", unknown QP "
                        + (now.unknownQp() - was.unknownQp()) + ", off path " + (now.offPath() - was.offPath())
                        + ", wrong transport " + (now.wrongTransport() - was.wrongTransport()) + ")");
            }
            long cmDropped = cm(side).ibCm().offPathMessages() - cmBase[side];
            if (cmDropped < cmExpected[side] || cmDropped > cmExpected[side] + cmMaybe[side]) {
                wrong.add(host + " CM: " + cmExpected[side] + " CM messages forged from a stranger with live IDs so "
                        + "far (and " + cmMaybe[side] + " that may count), " + cmDropped + " counted as off path");
            }
            SoftQueuePair qp = targetQps[side];
            if (qp != null) {
                long inv = qp.invalidResponses() - invalidBase[side];
                if (inv < invalidExpected[side] || inv > invalidExpected[side] + invalidMaybe[side]) {
                    wrong.add(host + " end of the target: " + invalidExpected[side] + " responses forged ahead of "
                            + "every PSN sent since it came up (and " + invalidMaybe[side] + " that may count), "
                            + inv + " counted as invalid");
                }
            }
        }
        return wrong;
    }

    private static boolean pause(long millis) {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(millis));
        return true;
    }

    /** Waits until the off-path observers stop moving (the receive threads have caught up), at most 3 s. */
    private void settle() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        long last = -1;
        int stable = 0;
        while (System.nanoTime() < deadline && stable < 3) {
            long now = arrived.get(0) + arrived.get(1) + drops(device(0)) + drops(device(1));
            stable = now == last ? stable + 1 : 0;
            last = now;
            pause(10);
        }
    }

    private void checkLogs() {
        List<Throwable> uncaught = net.uncaught();
        for (int i = uncaughtReported; i < uncaught.size(); i++) {
            escape(Escape.Type.UNCAUGHT, "loop uncaught handler: " + uncaught.get(i));
        }
        uncaughtReported = uncaught.size();
        List<String> seen = logged.failures();
        for (int i = loggedReported; i < seen.size(); i++) {
            escape(Escape.Type.UNCAUGHT, seen.get(i));
        }
        loggedReported = seen.size();
    }

    private void checkStream(EchoClient c, boolean isBystander) {
        StreamServer.Side s = server.stream(c.stream());
        String name = isBystander ? "bystander" : "target";
        if (c.corruption() != null || (s != null && s.corruption() != null)) {
            escape(Escape.Type.WRONG_DATA, name + ": " + (c.corruption() != null ? c.corruption() : s.corruption()));
        }
        if (ended(c)) {
            Throwable cause = c.error() != null ? c.error() : s != null ? s.error() : null;
            if (isBystander) {
                escape(Escape.Type.HARM, "the bystander ended (" + c + "; " + s + ")");
                throw new IllegalStateException("the bystander is gone: " + escapes.getLast());
            }
            if (!lethalSent) {
                escape(Escape.Type.HARM, "the target ended and no packet on its path could end it (" + c + "; " + s
                        + ")");
            } else if (cause != null && !(cause instanceof RdmaException)) {
                escape(Escape.Type.UNTYPED, "the target ended with " + cause);
            } else if (cause == null && !onPathCmSent) {
                escape(Escape.Type.UNTYPED, "the target was disconnected but no CM message was forged on its path");
            }
            targetEnds.merge(cause instanceof ConnectionFailedException f ? f.reason().name()
                    : cause == null ? "DISCONNECTED" : cause.getClass().getSimpleName(), 1, Integer::sum);
            replaceTarget();
            return;
        }
        long quiet = System.nanoTime() - c.lastProgressNanos();
        if (quiet > plan.stallBound().toNanos()) {
            escape(Escape.Type.HANG, name + " made no progress for " + quiet / 1_000_000 + " ms (" + c + "; " + s
                    + "; " + describe(c.connection()) + ")");
            if (isBystander) {
                throw new IllegalStateException("the bystander hangs: " + escapes.getLast());
            }
            replaceTarget();
        }
    }

    private boolean ended(EchoClient c) {
        StreamServer.Side s = server.stream(c.stream());
        return c.error() != null || c.isClosed() || c.disconnected() || (s != null && (s.error() != null
                || s.isClosed()));
    }

    private void replaceTarget() {
        EchoClient old = target;
        for (SoftQueuePair qp : targetQps) {
            if (qp != null) {
                invalidTotal += qp.invalidResponses();
            }
        }
        echoesOfEndedTargets += old.verified();
        old.close();
        StreamServer.Side s = server.stream(old.stream());
        if (s != null && s.connection() != null) {
            s.connection().close();
        }
        try {
            old.closed().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            escape(Escape.Type.HANG, "the ended target did not close within 30 s: " + old);
        }
        target = connect(nextStream++);
        lethalSent = false;
        onPathCmSent = false;
        reconnected = true;
    }

    /** After the last packet: both streams must still move (a window and more each) and close cleanly. */
    private void afterwards() {
        for (EchoClient c : List.of(bystander, target)) {
            long from = c.verified();
            long deadline = System.nanoTime() + plan.stallBound().toNanos();
            while (c.verified() < from + 64 && System.nanoTime() < deadline && c.error() == null) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
            }
            if (c.verified() < from + 64) {
                escape(Escape.Type.HANG, "after the fuzz, stream " + c.stream() + " moved only "
                        + (c.verified() - from) + " echoes in " + plan.stallBound().toSeconds() + " s (" + c + ")");
            }
        }
        checkLogs();
    }

    /** Closes both streams as an application would; that too must end cleanly. */
    private void closeStreams() {
        for (EchoClient c : List.of(bystander, target)) {
            c.close();
            try {
                c.closed().get(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                escape(Escape.Type.HANG, "stream " + c.stream() + " did not close within 30 s: " + c);
            }
        }
        server.close();
        checkLogs();
    }

    private void escape(Escape.Type type, String detail) {
        Escape e = new Escape(type, plan.seed(), injected, detail);
        escapes.add(e);
        log.println("fuzz ESCAPE " + e);
    }

    private Result result(double seconds) {
        Map<Route, Long> routes = new EnumMap<>(Route.class);
        for (Route r : Route.values()) {
            routes.put(r, byRoute[r.ordinal()]);
        }
        Map<Kind, Long> kinds = new EnumMap<>(Kind.class);
        for (Kind k : Kind.values()) {
            kinds.put(k, byKind[k.ordinal()]);
        }
        DropCounts c = net.clientDevice().dropCounts();
        DropCounts s = net.serverDevice().dropCounts();
        return new Result(plan.seed(), injected, routes, kinds, arrived.get(0) + arrived.get(1),
                new DropCounts(c.malformed() + s.malformed(), c.unknownQp() + s.unknownQp(), c.offPath()
                        + s.offPath(), c.wrongTransport() + s.wrongTransport()), cm(0).ibCm().offPathMessages() + cm(1).ibCm().offPathMessages(),
                invalidTotal + Arrays.stream(targetQps).filter(Objects::nonNull)
                        .mapToLong(SoftQueuePair::invalidResponses).sum(), Map.copyOf(targetEnds), echoesOfEndedTargets + target.verified() + bystander.verified(),
                List.copyOf(escapes), seconds);
    }

    // ---- helpers --------------------------------------------------------------------------------------------

    private Connection end(EchoClient c, int side) {
        if (side == 0) {
            return c.connection();
        }
        StreamServer.Side s = server.stream(c.stream());
        return s == null ? null : s.connection();
    }

    private SoftQueuePair[] qpsOf(EchoClient c) {
        SoftQueuePair[] qps = new SoftQueuePair[2];
        for (int side = 0; side < 2; side++) {
            Connection e = end(c, side);
            qps[side] = e != null && e.qp() instanceof SoftQueuePair q ? q : null;
        }
        return qps;
    }

    private SoftDevice device(int side) {
        return side == 0 ? net.clientDevice() : net.serverDevice();
    }

    private RdmaCm cm(int side) {
        return RdmaCmFactory.cmOf(side == 0 ? net.clientFabric() : net.serverFabric());
    }

    private static long drops(SoftDevice d) {
        return d.dropCounts().total() + d.accessGuard().droppedPackets();
    }

    private static String describe(Connection c) {
        return c == null ? "no connection" : c + (c.qp() instanceof SoftQueuePair q ? " " + q.describe() : "");
    }

    @Override
    public void close() {
        for (DatagramChannel ch : new DatagramChannel[] {foreign, foreignCm, otherPort[0], otherPort[1]}) {
            if (ch != null) {
                try {
                    ch.close();
                } catch (IOException ignored) {
                    // closing
                }
            }
        }
        if (net != null) {
            net.close();
        }
        logged.close();
    }
}
