package dev.ibex.softroce;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.spi.Access;
import dev.ibex.cm.spi.AhAttr;
import dev.ibex.cm.spi.CompletionBatch;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.DeviceContext;
import dev.ibex.cm.spi.Gid;
import dev.ibex.cm.spi.MemoryRegion;
import dev.ibex.cm.spi.Mtu;
import dev.ibex.cm.spi.ProtectionDomain;
import dev.ibex.cm.spi.ProviderConfig;
import dev.ibex.cm.spi.QpAttr;
import dev.ibex.cm.spi.QpCap;
import dev.ibex.cm.spi.QpInitAttr;
import dev.ibex.cm.spi.QpState;
import dev.ibex.cm.spi.QpType;
import dev.ibex.cm.spi.QueuePair;
import dev.ibex.cm.spi.SharedReceiveQueue;
import dev.ibex.cm.spi.VerbsAbi;
import dev.ibex.softroce.net.FreePort;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;

/**
 * Test support: a fabric with two soft devices (127.0.0.2 and 127.0.0.3) on a free UDP port with fast timers, and
 * helpers that connect RC QPs by hand (RESET → INIT → RTR → RTS with each other's QPN and PSN).
 */
public final class Harness implements AutoCloseable {
    public final SoftFabric fabric;
    public final DeviceContext a;
    public final DeviceContext b;
    public final Arena arena = Arena.ofShared();

    public Harness() {
        this(Map.of());
    }

    public Harness(Map<String, String> extra) {
        Map<String, String> p = new HashMap<>();
        p.put(SoftRoceConfig.PORT, Integer.toString(freePort()));
        p.put(SoftRoceConfig.DEVICES, "softa=127.0.0.2,softb=127.0.0.3");
        p.put(SoftRoceConfig.TIMER_SCALE, "0.1"); // retransmit timeout 18: 107 ms, generous on a loaded machine
        p.putAll(extra);
        fabric = (SoftFabric) new SoftRoceProvider().open(ProviderConfig.of(p));
        a = fabric.devices().get(0);
        b = fabric.devices().get(1);
    }

    /** A UDP port nobody uses on 127.0.0.2 and 127.0.0.3 right now. */
    public static int freePort() {
        return FreePort.on("127.0.0.2", "127.0.0.3");
    }

    /** One side of a connection: PD, CQs, QP, a registered buffer. */
    public static final class Side {
        public final DeviceContext dev;
        public final ProtectionDomain pd;
        public final CompletionQueue scq;
        public final CompletionQueue rcq;
        public final QueuePair qp;
        public final MemorySegment buf;
        public final MemoryRegion mr;
        public final CompletionBatch wc;

        Side(DeviceContext dev, Arena arena, int bufSize, QpCap cap, boolean signalAll, SharedReceiveQueue srq,
                ProtectionDomain pd, QpType type) {
            this(dev, arena, bufSize, cap, signalAll, srq, pd, type, null, null);
        }

        Side(DeviceContext dev, Arena arena, int bufSize, QpCap cap, boolean signalAll, SharedReceiveQueue srq,
                ProtectionDomain pd, QpType type, CompletionQueue scq, CompletionQueue rcq) {
            this.dev = dev;
            this.pd = pd != null ? pd : dev.allocPd();
            this.scq = scq != null ? scq : dev.createCompletionQueue(1024, null, 0);
            this.rcq = rcq != null ? rcq : dev.createCompletionQueue(1024, null, 0);
            this.qp = this.pd.createQueuePair(new QpInitAttr(this.scq, this.rcq, srq, cap, type, signalAll, null));
            this.buf = arena.allocate(bufSize, 4096);
            this.mr = this.pd.registerMemory(buf, EnumSet.allOf(Access.class));
            this.wc = CompletionBatch.allocate(arena, 64);
        }
    }

    public Side side(DeviceContext dev, int bufSize) {
        return new Side(dev, arena, bufSize, new QpCap(256, 256, 4, 4, 64), true, null, null, QpType.RC);
    }

    public Side side(DeviceContext dev, int bufSize, QpCap cap, boolean signalAll, SharedReceiveQueue srq,
            ProtectionDomain pd) {
        return new Side(dev, arena, bufSize, cap, signalAll, srq, pd, QpType.RC);
    }

    public Side sideOn(DeviceContext dev, int bufSize, QpCap cap, boolean signalAll, CompletionQueue scq,
            CompletionQueue rcq) {
        return new Side(dev, arena, bufSize, cap, signalAll, null, null, QpType.RC, scq, rcq);
    }

    public Side udSide(DeviceContext dev, int bufSize) {
        return new Side(dev, arena, bufSize, new QpCap(64, 64, 4, 4, 64), true, null, null, QpType.UD);
    }

    public static AhAttr path(DeviceContext to) {
        Gid gid = to.queryGid(1, 0);
        return AhAttr.roce(gid, 0, 1);
    }

    public static AhAttr pathFrom(DeviceContext to) {
        return path(to);
    }

    /** Default connection parameters; tweak with the setters. */
    public static final class Params {
        public int timeout = 18;
        public int retryCnt = 7;
        public int rnrRetry = 7;
        public int minRnrTimer = 1;
        public int maxRdAtomic = 16;
        public int access = Access.mask(EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ,
                Access.REMOTE_ATOMIC));
        public Mtu mtu = Mtu.MTU_1024;
        public int psnA = 0x100;
        public int psnB = 0x200;
    }

    /** Connects two RC QPs by hand. */
    public static void connect(Side x, Side y, Params p) {
        toInit(x.qp, p);
        toInit(y.qp, p);
        toRtr(x.qp, y.dev, y.qp.qpNum(), p.psnB, p);
        toRtr(y.qp, x.dev, x.qp.qpNum(), p.psnA, p);
        toRts(x.qp, p.psnA, p);
        toRts(y.qp, p.psnB, p);
        assertThat(x.qp.state()).isEqualTo(QpState.RTS);
        assertThat(y.qp.state()).isEqualTo(QpState.RTS);
    }

    public static void toInit(QueuePair qp, Params p) {
        qp.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).portNum(1).accessFlags(p.access));
    }

    public static void toRtr(QueuePair qp, DeviceContext peer, int peerQpn, int peerPsn, Params p) {
        qp.modify(new QpAttr().state(QpState.RTR).ahAttr(path(peer)).pathMtu(p.mtu).destQpNum(peerQpn)
                .rqPsn(peerPsn).maxDestRdAtomic(p.maxRdAtomic).minRnrTimer(p.minRnrTimer));
    }

    public static void toRts(QueuePair qp, int myPsn, Params p) {
        qp.modify(new QpAttr().state(QpState.RTS).timeout(p.timeout).retryCnt(p.retryCnt).rnrRetry(p.rnrRetry)
                .sqPsn(myPsn).maxRdAtomic(p.maxRdAtomic));
    }

    /**
     * Polls {@code cq} until {@code n} completions arrived (bounded wait), storing them at indexes 0.. of
     * {@code wc}; returns how many it got (at most {@code wc.capacity()}).
     */
    public static int pollAtLeast(CompletionQueue cq, CompletionBatch wc, int n, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        int got = 0;
        try (Arena a = Arena.ofConfined()) {
            CompletionBatch scratch = CompletionBatch.allocate(a, wc.capacity());
            while (got < n && System.nanoTime() < deadline) {
                int k = cq.poll(scratch);
                k = Math.min(k, wc.capacity() - got);
                MemorySegment.copy(scratch.segment(), 0, wc.segment(), (long) got * VerbsAbi.WC_SIZE,
                        (long) k * VerbsAbi.WC_SIZE);
                got += k;
                if (k == 0) {
                    Thread.yield();
                }
            }
        }
        return got;
    }

    /** Transport state of a QP, for failure messages. */
    public static String describe(QueuePair qp) {
        return ((dev.ibex.softroce.transport.SoftQueuePair) qp).describe();
    }

    @Override
    public void close() {
        fabric.close();
        assertThat(fabric.resources().total()).as("resources after close: %s", fabric.resources()).isZero();
        arena.close();
    }
}
