package dev.ibex.cm.reactive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ibex.cm.RdmaConnectException;
import dev.ibex.cm.buffer.Buffer;
import dev.ibex.cm.buffer.RemoteAccess;
import dev.ibex.cm.buffer.RemoteBuffer;
import dev.ibex.cm.endpoint.ConnectionOptions;
import dev.ibex.cm.endpoint.Exposure;
import dev.ibex.cm.endpoint.WorkCompletionException;
import dev.ibex.cm.loop.LoopOptions;
import dev.ibex.cm.spi.WcStatus;
import dev.ibex.softroce.SoftFabric;
import dev.ibex.softroce.transport.SoftDevice;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Issue 14's attack list, played by a hostile client against a server on soft-roce with default options. For every
 * connection the server takes a whole slab's worth of pool buffers, fills them with a secret and exposes one of them
 * — to that connection only, with the rights the test asks for. The client then tries to get more: neighbours with
 * the same key, guessed keys, the key after the exposure ended, the key from another connection, rights it was not
 * given. Every attempt must fail with a remote access error, and afterwards every secret byte must be as it was
 * (the failed READs returned nothing: the responder refuses before it sends a byte). One connection per attempt,
 * because a remote access error ends the connection (the QP goes to ERR), as it would for a real attacker. The
 * server keeps every buffer it took until the test ends, so no check looks at a buffer someone else reused.
 */
class HostileClientTest {
    static final Duration WAIT = Duration.ofSeconds(15);
    static final int SLAB = 16;
    static final int SIZE = 4096;
    static final byte SECRET = (byte) 0x5E;
    static final byte PUBLIC = (byte) 0x11;

    /** One connection's view from the server: what it exposed and the secrets around it. */
    record Victim(RdmaConnection connection, RdmaExposure exposure, Buffer exposed, List<Buffer> neighbours) {
        RemoteBuffer remote() {
            return exposure.remote();
        }
    }

    final SoftHosts hosts = new SoftHosts(LoopOptions.DEFAULT.buffers().withBufferSize(SIZE).withSlabs(SLAB, 1024));
    final BlockingQueue<Victim> victims = new LinkedBlockingQueue<>();
    final List<RdmaConnection> attackers = new ArrayList<>();
    final List<Buffer> held = new java.util.concurrent.CopyOnWriteArrayList<>();
    volatile Set<RemoteAccess> rights = EnumSet.of(RemoteAccess.READ, RemoteAccess.WRITE);
    DisposableServer server;

    @BeforeEach
    void serve() {
        // this test measures what each guess reaches, not how soon a guesser is cut off (see the last test)
        guard().limits(1_000_000, Duration.ofMinutes(1), Duration.ZERO);
        server = hosts.rdmaServer().connectionOptions(ConnectionOptions.DEFAULT.withReceiveWindow(4))
                .handle(c -> Flux.range(0, SLAB).concatMap(i -> c.allocate()).collectList().flatMap(bufs -> {
                    held.addAll(bufs); // kept until the test ends, so that checking them later still means something
                    Buffer exposed = bufs.get(SLAB / 2);
                    List<Buffer> neighbours = new ArrayList<>(bufs);
                    neighbours.remove(exposed);
                    neighbours.forEach(b -> b.segment().fill(SECRET));
                    exposed.segment().fill(PUBLIC);
                    return c.expose(exposed, rights.toArray(RemoteAccess[]::new))
                            .doOnNext(x -> victims.add(new Victim(c, x, exposed, neighbours)))
                            .then(c.onDispose());
                }))
                .bindNow();
    }

    @AfterEach
    void close() {
        try {
            attackers.forEach(RdmaConnection::dispose);
            server.disposeNow(WAIT);
            held.forEach(HostileClientTest::releaseQuietly);
            hosts.awaitQuiet();
        } finally {
            hosts.close();
        }
    }

    private SoftDevice guard0() {
        return (SoftDevice) ((SoftFabric) hosts.serverFabric).devices().get(0);
    }

    private dev.ibex.softroce.transport.AccessGuard guard() {
        return guard0().accessGuard();
    }

    private static void releaseQuietly(Buffer b) {
        try {
            b.release();
        } catch (IllegalStateException alreadyReleasedByTheTest) {
            // fine
        }
    }

    private RdmaConnection attacker() {
        RdmaConnection a = hosts.rdmaClient(server).connectNow(WAIT);
        attackers.add(a);
        return a;
    }

    /** A new connection and the exposure the server made for it. */
    private Attack attack() throws InterruptedException {
        RdmaConnection a = attacker();
        Victim v = victims.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(v).as("the server's exposure").isNotNull();
        return new Attack(a, v);
    }

    record Attack(RdmaConnection attacker, Victim victim) {}

    /** {@code op} fails with a remote access error. */
    private static void refused(Mono<?> op, String what) {
        Throwable e = op.then(Mono.<Throwable>empty()).onErrorResume(Mono::just).block(WAIT);
        assertThat(e).as(what + ": must fail").isInstanceOf(WorkCompletionException.class);
        // the victim NAKs (REM_ACCESS_ERR) and then disconnects; the NAK and the DREQ travel separate flows, so the
        // DREQ may flush the attacker's request first (WR_FLUSH_ERR). Either way nothing was read or written: the
        // callers check the victim's memory afterwards
        assertThat(((WorkCompletionException) e).status()).as(what).isIn(WcStatus.REM_ACCESS_ERR,
                WcStatus.WR_FLUSH_ERR);
    }

    /** Every neighbour still holds only the secret; the exposed buffer outside its exposure is untouched. */
    private static void secretsIntact(Victim v) {
        for (Buffer n : v.neighbours()) {
            assertThat(firstDifference(n.segment(), SECRET)).as("neighbour at 0x%x", n.address()).isEqualTo(-1);
        }
    }

    private static long firstDifference(MemorySegment s, byte expected) {
        for (long i = 0; i < s.byteSize(); i++) {
            if (s.get(ValueLayout.JAVA_BYTE, i) != expected) {
                return i;
            }
        }
        return -1;
    }

    @Test
    void theGrantedAccessWorks() throws Exception {
        Attack a = attack();
        RemoteBuffer r = a.victim().remote();
        assertThat(r.length()).isEqualTo(SIZE);
        assertThat(a.victim().exposure().isBoundToConnection()).isTrue();
        assertThat(a.victim().exposure().exposure().mode()).isEqualTo(Exposure.Mode.WINDOW);
        assertThat(a.attacker().read(r, 0, 16).map(Message::toByteArray).block(WAIT)).containsOnly(PUBLIC);
        a.attacker().write(r, SIZE - 4, new byte[] {1, 2, 3, 4}).block(WAIT);
        assertThat(a.victim().exposed().segment().get(ValueLayout.JAVA_BYTE, SIZE - 1)).isEqualTo((byte) 4);
        secretsIntact(a.victim());
    }

    @Test
    void outOfBoundsWithTheSameKeyReachesNoNeighbour() throws Exception {
        int attempts = 0;
        Attack first = attack();
        long exposedAt = first.victim().exposed().address();
        // every other buffer the server took, at its real address, with the exposure's key: READ, then WRITE
        List<Long> offsets = new ArrayList<>();
        for (Buffer n : first.victim().neighbours()) {
            offsets.add(n.address() - exposedAt);
        }
        first.attacker().dispose();
        for (long off : offsets) {
            for (boolean write : new boolean[] {false, true}) {
                Attack a = attack();
                RemoteBuffer k = a.victim().remote();
                RemoteBuffer neighbour = new RemoteBuffer(k.address() + off, k.rkey(), SIZE);
                refused(write ? a.attacker().write(neighbour, 0, new byte[SIZE])
                        : a.attacker().read(neighbour, 0, SIZE), (write ? "WRITE" : "READ") + " at " + off);
                secretsIntact(a.victim());
                attempts++;
            }
        }
        // ranges that start inside and run one byte past either end
        Attack below = attack();
        RemoteBuffer k = below.victim().remote();
        refused(below.attacker().write(new RemoteBuffer(k.address() - 1, k.rkey(), 2), 0, new byte[2]),
                "WRITE straddling the start");
        secretsIntact(below.victim());
        Attack above = attack();
        k = above.victim().remote();
        refused(above.attacker().read(new RemoteBuffer(k.address(), k.rkey(), SIZE + 8), SIZE - 8, 16),
                "READ running past the end");
        secretsIntact(above.victim());
        assertThat(attempts).isEqualTo(2 * (SLAB - 1));
    }

    @Test
    void guessedKeysReachNothing() throws Exception {
        List<Integer> guesses = new ArrayList<>();
        Attack first = attack();
        int rkey = first.victim().remote().rkey();
        int poolKey = first.victim().exposed().region().rkey();
        first.attacker().dispose();
        for (int d = 1; d <= 4; d++) { // the keys an index-based scheme gives the neighbouring regions
            guesses.add(rkey + (d << 8));
            guesses.add(rkey - (d << 8));
        }
        guesses.add(rkey ^ 1); // the window's key with another consumer key
        guesses.add(poolKey); // the pool slab's own key (a guess that happens to hit it: local access only)
        SplittableRandom random = new SplittableRandom(14);
        for (int i = 0; i < 4; i++) {
            guesses.add(random.nextInt());
        }
        for (int guess : guesses) {
            Attack a = attack();
            RemoteBuffer r = a.victim().remote();
            RemoteBuffer forged = new RemoteBuffer(a.victim().neighbours().get(0).address(), guess, SIZE);
            refused(a.attacker().read(forged, 0, 64), "READ with key 0x" + Integer.toHexString(guess));
            secretsIntact(a.victim());
            assertThat(r.rkey()).isNotEqualTo(guess);
        }
    }

    @Test
    void afterReleaseTheKeyIsDeadAndTheFreedBufferUntouched() throws Exception {
        Attack a = attack();
        Victim v = a.victim();
        a.attacker().read(v.remote(), 0, 8).block(WAIT); // live
        v.connection().loop().execute(v.exposed()::release);
        v.exposure().onDispose().block(WAIT);
        assertThat(v.exposure().end()).isEqualTo(Exposure.End.RELEASED);
        await().atMost(WAIT).until(v.exposed()::isFree); // back in the pool only now
        byte[] before = v.exposed().segment().toArray(ValueLayout.JAVA_BYTE);
        refused(a.attacker().write(v.remote(), 0, new byte[64]), "WRITE after release");
        assertThat(v.exposed().segment().toArray(ValueLayout.JAVA_BYTE)).isEqualTo(before);
        secretsIntact(v);
    }

    @Test
    void afterDisposeTheKeyIsDead() throws Exception {
        Attack a = attack();
        Victim v = a.victim();
        v.exposure().dispose();
        v.exposure().onDispose().block(WAIT);
        assertThat(v.exposure().end()).isEqualTo(Exposure.End.REVOKED);
        refused(a.attacker().write(v.remote(), 0, new byte[64]), "WRITE after dispose");
        assertThat(firstDifference(v.exposed().segment(), PUBLIC)).isEqualTo(-1);
        secretsIntact(v);
    }

    @Test
    void afterCloseTheKeyIsDeadOnEveryConnection() throws Exception {
        Attack a = attack();
        Victim old = a.victim();
        a.attacker().disconnect().block(WAIT);
        old.exposure().onDispose().block(WAIT);
        assertThat(old.exposure().end()).isEqualTo(Exposure.End.CLOSED);
        Attack again = attack();
        refused(again.attacker().write(old.remote(), 0, new byte[64]), "the old key on a new connection");
        secretsIntact(again.victim());
    }

    @Test
    void anotherConnectionCannotUseTheKey() throws Exception {
        Attack owner = attack();
        Attack other = attack();
        refused(other.attacker().write(owner.victim().remote(), 0, new byte[64]), "WRITE from another connection");
        refused(attack().attacker().read(owner.victim().remote(), 0, 64), "READ from another connection");
        assertThat(firstDifference(owner.victim().exposed().segment(), PUBLIC)).isEqualTo(-1);
        // the connection it was given to still has it
        owner.attacker().write(owner.victim().remote(), 0, new byte[] {9}).block(WAIT);
        assertThat(owner.victim().exposed().segment().get(ValueLayout.JAVA_BYTE, 0)).isEqualTo((byte) 9);
        secretsIntact(owner.victim());
        secretsIntact(other.victim());
    }

    @Test
    void rightsThatWereNotGivenAreRefused() throws Exception {
        rights = EnumSet.of(RemoteAccess.READ);
        Attack readOnly = attack();
        refused(readOnly.attacker().write(readOnly.victim().remote(), 0, new byte[8]), "WRITE to a READ exposure");
        assertThat(firstDifference(readOnly.victim().exposed().segment(), PUBLIC)).isEqualTo(-1);
        rights = EnumSet.of(RemoteAccess.WRITE);
        Attack writeOnly = attack();
        refused(writeOnly.attacker().read(writeOnly.victim().remote(), 0, 8), "READ of a WRITE exposure");
        rights = EnumSet.of(RemoteAccess.READ, RemoteAccess.WRITE);
        Attack noAtomics = attack();
        refused(noAtomics.attacker().fetchAdd(noAtomics.victim().remote(), 0, 1), "atomic on a non-atomic exposure");
        refused(attack().attacker().compareSwap(noAtomics.victim().remote(), 0, 0, 1), "CAS, other connection");
        assertThat(firstDifference(noAtomics.victim().exposed().segment(), PUBLIC)).isEqualTo(-1);
        secretsIntact(readOnly.victim());
        secretsIntact(writeOnly.victim());
        secretsIntact(noAtomics.victim());
    }

    @Test
    void aPeerThatKeepsGuessingIsCutOff() throws Exception {
        guard().limits(3, Duration.ofMinutes(1), Duration.ofMinutes(1));
        for (int i = 0; i < 3; i++) {
            Attack a = attack();
            refused(a.attacker().read(new RemoteBuffer(a.victim().remote().address(), 0x0BAD0000 + i, 8), 0, 8),
                    "guess " + i);
        }
        assertThat(guard().isBlocked(dev.ibex.softroce.wire.Ipv4.toInt(
                (java.net.Inet4Address) java.net.InetAddress.getByName(SoftHosts.CLIENT_IP)))).isTrue();
        // the next connection attempt from that address is not even answered
        Throwable e = hosts.rdmaClient(server).connectTimeout(Duration.ofSeconds(1)).connect()
                .then(Mono.<Throwable>empty()).onErrorResume(Mono::just).block(WAIT);
        assertThat(e).isInstanceOf(RdmaConnectException.class);
        assertThat(guard().droppedPackets()).isPositive();
    }
}
