package dev.ibex.softroce.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.Access;
import dev.ibex.cm.spi.CompletionBatch;
import dev.ibex.cm.spi.MemoryRegion;
import dev.ibex.cm.spi.MemoryWindow;
import dev.ibex.cm.spi.PostException;
import dev.ibex.cm.spi.QpCap;
import dev.ibex.cm.spi.QpState;
import dev.ibex.cm.spi.RecvBatch;
import dev.ibex.cm.spi.SendBatch;
import dev.ibex.cm.spi.SendFlags;
import dev.ibex.cm.spi.WcFlags;
import dev.ibex.cm.spi.WcOpcode;
import dev.ibex.cm.spi.WcStatus;
import dev.ibex.cm.spi.WrOpcode;
import dev.ibex.softroce.Harness;
import dev.ibex.softroce.Harness.Side;
import dev.ibex.softroce.wire.Ipv4;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.time.Duration;
import java.util.EnumSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Memory windows end to end between two soft devices (issue 14): a window grants exactly its bytes and rights to
 * exactly its QP, until LOCAL_INV, the peer's SEND_WITH_INV or deallocation; SEND_WITH_INV cannot end a region.
 * {@code y} owns the memory, {@code x} is the peer that tries to reach it; every refused request leaves the target
 * bytes as they were.
 */
class MemoryWindowTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final int READ = Access.REMOTE_READ.bit();
    private static final int WRITE = Access.REMOTE_WRITE.bit();
    private static final int ATOMIC = Access.REMOTE_ATOMIC.bit();
    private static final long WINDOW = 8192;
    private static final long WINDOW_LEN = 4096;
    private Harness h;
    private Side x;
    private Side y;
    private SendBatch sb;
    private RecvBatch rb;

    @BeforeEach
    void connect() {
        h = new Harness();
        x = h.side(h.a, 1 << 16, new QpCap(64, 64, 2, 2, 64), true, null, null);
        y = h.side(h.b, 1 << 16, new QpCap(64, 64, 2, 2, 64), true, null, null);
        Harness.connect(x, y, new Harness.Params());
        sb = SendBatch.allocate(h.arena, 4, 2);
        rb = RecvBatch.allocate(h.arena, 4, 2);
        y.buf.fill((byte) 0x5A); // the secret everywhere outside what is exposed
    }

    @AfterEach
    void close() {
        h.close();
    }

    private static CompletionBatch one(Side s, boolean send) {
        assertThat(Harness.pollAtLeast(send ? s.scq : s.rcq, s.wc, 1, WAIT)).as("completion: %s", Harness.describe(s.qp))
                .isEqualTo(1);
        return s.wc;
    }

    /** Binds a type 2 window over y's [WINDOW, WINDOW + WINDOW_LEN) with {@code access}; returns its rkey. */
    private int bindOnY(MemoryWindow mw, int access) {
        int rkey = MemoryWindow.nextRkey(mw.rkey());
        sb.clear(0).wrId(0, 100).opcode(0, WrOpcode.BIND_MW)
                .bindMw(0, mw, rkey, y.mr, y.mr.address() + WINDOW, WINDOW_LEN, access);
        y.qp.postSend(sb, 1);
        CompletionBatch wc = one(y, true);
        assertThat(wc.status(0)).isEqualTo(WcStatus.SUCCESS);
        assertThat(wc.opcode(0)).isEqualTo(WcOpcode.BIND_MW);
        return rkey;
    }

    private WcStatus writeFromX(long yOffset, int len, int rkey) {
        x.buf.asSlice(0, len).fill((byte) 0x11);
        sb.clear(0).wrId(0, 1).opcode(0, WrOpcode.RDMA_WRITE).rdma(0, y.mr.address() + yOffset, rkey)
                .single(0, x.mr.address(), len, x.mr.lkey());
        x.qp.postSend(sb, 1);
        return one(x, true).status(0);
    }

    private WcStatus readFromX(long yOffset, int len, int rkey) {
        sb.clear(0).wrId(0, 2).opcode(0, WrOpcode.RDMA_READ).rdma(0, y.mr.address() + yOffset, rkey)
                .single(0, x.mr.address() + 32768, len, x.mr.lkey());
        x.qp.postSend(sb, 1);
        return one(x, true).status(0);
    }

    /** y's bytes outside [from, to) are all still the secret. */
    private void assertUntouchedOutside(long from, long to) {
        for (long i = 0; i < y.buf.byteSize(); i++) {
            if ((i < from || i >= to) && y.buf.get(ValueLayout.JAVA_BYTE, i) != 0x5A) {
                throw new AssertionError("byte " + i + " of the owner's memory changed");
            }
        }
    }

    private void reconnect() {
        x = h.side(h.a, 1 << 16, new QpCap(64, 64, 2, 2, 64), true, null, x.pd);
        y = h.side(h.b, 1 << 16, new QpCap(64, 64, 2, 2, 64), true, null, y.pd);
        Harness.connect(x, y, new Harness.Params());
        y.buf.fill((byte) 0x5A);
    }

    @Test
    void aType2WindowGrantsExactlyItsBytesAndRights() {
        MemoryWindow mw = y.pd.allocMemoryWindow(MemoryWindow.Type.TYPE_2);
        assertThat(mw.type()).isEqualTo(MemoryWindow.Type.TYPE_2);
        int rkey = bindOnY(mw, READ | WRITE);
        assertThat(rkey >>> 8).as("a binding keeps the window's 24-bit name").isEqualTo(mw.rkey() >>> 8);
        assertThat(writeFromX(WINDOW, (int) WINDOW_LEN, rkey)).isEqualTo(WcStatus.SUCCESS);
        assertThat(y.buf.get(ValueLayout.JAVA_BYTE, WINDOW)).isEqualTo((byte) 0x11);
        assertThat(readFromX(WINDOW + 100, 200, rkey)).isEqualTo(WcStatus.SUCCESS);
        // one byte past the end: inside the region, outside the window
        assertThat(writeFromX(WINDOW + 1, (int) WINDOW_LEN, rkey)).isEqualTo(WcStatus.REM_ACCESS_ERR);
        assertThat(x.qp.state()).isEqualTo(QpState.ERR);
        assertUntouchedOutside(WINDOW, WINDOW + WINDOW_LEN);
        mw.close();
    }

    @Test
    void outOfBoundsReadsFailBeforeAnyByteLeaves() {
        MemoryWindow mw = y.pd.allocMemoryWindow(MemoryWindow.Type.TYPE_2);
        int rkey = bindOnY(mw, READ);
        x.buf.fill((byte) 0);
        assertThat(readFromX(WINDOW - 8, 64, rkey)).isEqualTo(WcStatus.REM_ACCESS_ERR);
        for (long i = 0; i < 64; i++) {
            assertThat(x.buf.get(ValueLayout.JAVA_BYTE, 32768 + i)).isZero();
        }
        mw.close();
    }

    @Test
    void rightsAreThoseOfTheBinding() {
        MemoryWindow mw = y.pd.allocMemoryWindow(MemoryWindow.Type.TYPE_2);
        int rkey = bindOnY(mw, READ);
        assertThat(writeFromX(WINDOW, 8, rkey)).as("WRITE to a READ window").isEqualTo(WcStatus.REM_ACCESS_ERR);
        assertUntouchedOutside(0, 0);
        reconnect();
        // the window is still bound to the old y QP: create another for the new one
        MemoryWindow atomics = y.pd.allocMemoryWindow(MemoryWindow.Type.TYPE_2);
        int rw = bindOnY(atomics, READ | WRITE);
        sb.clear(0).wrId(0, 3).opcode(0, WrOpcode.ATOMIC_FETCH_AND_ADD).atomic(0, y.mr.address() + WINDOW, 1, 0, rw)
                .single(0, x.mr.address(), 8, x.mr.lkey());
        x.qp.postSend(sb, 1);
        assertThat(one(x, true).status(0)).as("atomic on a window without atomic rights")
                .isEqualTo(WcStatus.REM_ACCESS_ERR);
        assertUntouchedOutside(0, 0);
        mw.close();
        atomics.close();
    }

    @Test
    void atomicsNeedTheAtomicRight() {
        MemoryWindow mw = y.pd.allocMemoryWindow(MemoryWindow.Type.TYPE_2);
        int rkey = bindOnY(mw, ATOMIC);
        y.buf.set(ValueLayout.JAVA_LONG, WINDOW, 41);
        sb.clear(0).wrId(0, 3).opcode(0, WrOpcode.ATOMIC_FETCH_AND_ADD).atomic(0, y.mr.address() + WINDOW, 1, 0, rkey)
                .single(0, x.mr.address(), 8, x.mr.lkey());
        x.qp.postSend(sb, 1);
        assertThat(one(x, true).status(0)).isEqualTo(WcStatus.SUCCESS);
        assertThat(y.buf.get(ValueLayout.JAVA_LONG, WINDOW)).isEqualTo(42);
        assertThat(x.buf.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(41);
        mw.close();
    }

    @Test
    void localInvalidateEndsTheWindowAndARebindChangesTheKey() {
        MemoryWindow mw = y.pd.allocMemoryWindow(MemoryWindow.Type.TYPE_2);
        int first = bindOnY(mw, WRITE);
        sb.clear(0).wrId(0, 101).opcode(0, WrOpcode.LOCAL_INV).invalidateRkey(0, first);
        y.qp.postSend(sb, 1);
        CompletionBatch wc = one(y, true);
        assertThat(wc.status(0)).isEqualTo(WcStatus.SUCCESS);
        assertThat(wc.opcode(0)).isEqualTo(WcOpcode.LOCAL_INV);
        int second = MemoryWindow.nextRkey(first);
        sb.clear(0).wrId(0, 102).opcode(0, WrOpcode.BIND_MW)
                .bindMw(0, mw, second, y.mr, y.mr.address() + WINDOW, WINDOW_LEN, WRITE);
        y.qp.postSend(sb, 1);
        assertThat(one(y, true).status(0)).isEqualTo(WcStatus.SUCCESS);
        assertThat(second).isNotEqualTo(first);
        assertThat(writeFromX(WINDOW, 8, second)).isEqualTo(WcStatus.SUCCESS);
        y.buf.asSlice(WINDOW, 8).fill((byte) 0x5A);
        assertThat(writeFromX(WINDOW, 8, first)).as("the first binding's key").isEqualTo(WcStatus.REM_ACCESS_ERR);
        assertUntouchedOutside(0, 0);
        mw.close();
    }

    @Test
    void afterLocalInvalidateNothingReachesTheMemory() {
        MemoryWindow mw = y.pd.allocMemoryWindow(MemoryWindow.Type.TYPE_2);
        int rkey = bindOnY(mw, READ | WRITE);
        sb.clear(0).wrId(0, 101).opcode(0, WrOpcode.LOCAL_INV).invalidateRkey(0, rkey);
        y.qp.postSend(sb, 1);
        assertThat(one(y, true).status(0)).isEqualTo(WcStatus.SUCCESS);
        assertThat(writeFromX(WINDOW, 8, rkey)).isEqualTo(WcStatus.REM_ACCESS_ERR);
        assertUntouchedOutside(0, 0);
        mw.close();
    }

    @Test
    void thePeersSendWithInvalidateEndsTheWindow() {
        MemoryWindow mw = y.pd.allocMemoryWindow(MemoryWindow.Type.TYPE_2);
        int rkey = bindOnY(mw, WRITE);
        rb.clear(0).wrId(0, 5).single(0, y.mr.address(), 64, y.mr.lkey());
        y.qp.postRecv(rb, 1);
        y.buf.asSlice(0, 64).fill((byte) 0);
        sb.clear(0).wrId(0, 6).opcode(0, WrOpcode.SEND_WITH_INV).invalidateRkey(0, rkey)
                .single(0, x.mr.address(), 8, x.mr.lkey());
        x.qp.postSend(sb, 1);
        CompletionBatch wc = one(y, false);
        assertThat(wc.status(0)).isEqualTo(WcStatus.SUCCESS);
        assertThat(wc.flags(0) & WcFlags.WITH_INV).isNotZero();
        assertThat(wc.invalidatedRkey(0)).isEqualTo(rkey);
        assertThat(one(x, true).status(0)).isEqualTo(WcStatus.SUCCESS);
        y.buf.asSlice(0, 64).fill((byte) 0x5A);
        assertThat(writeFromX(WINDOW, 8, rkey)).isEqualTo(WcStatus.REM_ACCESS_ERR);
        assertUntouchedOutside(0, 0);
        // the window is free again: the owner can bind it anew
        reconnect();
        assertThat(bindOnY(mw, WRITE)).isNotEqualTo(rkey);
        mw.close();
    }

    @Test
    void sendWithInvalidateCannotEndARegion() {
        MemoryRegion target = y.pd.registerMemory(h.arena.allocate(4096, 8),
                EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
        rb.clear(0).wrId(0, 5).single(0, y.mr.address(), 64, y.mr.lkey());
        y.qp.postRecv(rb, 1);
        sb.clear(0).wrId(0, 6).opcode(0, WrOpcode.SEND_WITH_INV).invalidateRkey(0, target.rkey())
                .single(0, x.mr.address(), 8, x.mr.lkey());
        x.qp.postSend(sb, 1);
        assertThat(one(x, true).status(0)).isEqualTo(WcStatus.REM_INV_REQ_ERR);
        assertThat(one(y, false).status(0)).isEqualTo(WcStatus.REM_INV_REQ_ERR);
        // the region's key still works on a new connection
        reconnect();
        sb.clear(0).wrId(0, 7).opcode(0, WrOpcode.RDMA_WRITE).rdma(0, target.address(), target.rkey())
                .single(0, x.mr.address(), 8, x.mr.lkey());
        x.qp.postSend(sb, 1);
        assertThat(one(x, true).status(0)).isEqualTo(WcStatus.SUCCESS);
        target.close();
    }

    @Test
    void aType2WindowServesOnlyTheQpItIsBoundTo() {
        MemoryWindow mw = y.pd.allocMemoryWindow(MemoryWindow.Type.TYPE_2);
        int rkey = bindOnY(mw, READ | WRITE);
        // another connection into the same PD of the owner
        Side x2 = h.side(h.a, 1 << 16, new QpCap(64, 64, 2, 2, 64), true, null, null);
        Side y2 = h.side(h.b, 1 << 16, new QpCap(64, 64, 2, 2, 64), true, null, y.pd);
        Harness.connect(x2, y2, new Harness.Params());
        sb.clear(0).wrId(0, 1).opcode(0, WrOpcode.RDMA_WRITE).rdma(0, y.mr.address() + WINDOW, rkey)
                .single(0, x2.mr.address(), 8, x2.mr.lkey());
        x2.qp.postSend(sb, 1);
        assertThat(one(x2, true).status(0)).isEqualTo(WcStatus.REM_ACCESS_ERR);
        // nor may the other connection's peer invalidate it
        rb.clear(0).wrId(0, 5).single(0, y2.mr.address(), 64, y2.mr.lkey());
        Side x3 = h.side(h.a, 1 << 16, new QpCap(64, 64, 2, 2, 64), true, null, null);
        Side y3 = h.side(h.b, 1 << 16, new QpCap(64, 64, 2, 2, 64), true, null, y.pd);
        Harness.connect(x3, y3, new Harness.Params());
        rb.clear(0).wrId(0, 5).single(0, y3.mr.address(), 64, y3.mr.lkey());
        y3.qp.postRecv(rb, 1);
        sb.clear(0).wrId(0, 6).opcode(0, WrOpcode.SEND_WITH_INV).invalidateRkey(0, rkey)
                .single(0, x3.mr.address(), 8, x3.mr.lkey());
        x3.qp.postSend(sb, 1);
        assertThat(one(x3, true).status(0)).isEqualTo(WcStatus.REM_INV_REQ_ERR);
        assertUntouchedOutside(0, 0);
        // the bound connection still has it
        assertThat(writeFromX(WINDOW, 8, rkey)).isEqualTo(WcStatus.SUCCESS);
        mw.close();
    }

    @Test
    void deallocatingEndsTheWindowAndARegionWithWindowsCannotBeDeregistered() {
        MemoryWindow mw = y.pd.allocMemoryWindow(MemoryWindow.Type.TYPE_2);
        int rkey = bindOnY(mw, WRITE);
        assertThatThrownBy(y.mr::close).isInstanceOf(RdmaException.class)
                .satisfies(e -> assertThat(((RdmaException) e).errno()).isEqualTo(Errno.EBUSY));
        mw.close();
        assertThat(writeFromX(WINDOW, 8, rkey)).isEqualTo(WcStatus.REM_ACCESS_ERR);
        assertUntouchedOutside(0, 0);
    }

    @Test
    void type1WindowsAreBoundWithTheVerbAndServeEveryQpOfThePd() {
        MemoryWindow mw = y.pd.allocMemoryWindow(MemoryWindow.Type.TYPE_1);
        int rkey = y.qp.bindMemoryWindow(mw, 77, SendFlags.SIGNALED, y.mr, y.mr.address() + WINDOW, WINDOW_LEN, WRITE);
        CompletionBatch wc = one(y, true);
        assertThat(wc.status(0)).isEqualTo(WcStatus.SUCCESS);
        assertThat(wc.wrId(0)).isEqualTo(77);
        assertThat(mw.rkey()).isEqualTo(rkey);
        assertThat(writeFromX(WINDOW, 8, rkey)).isEqualTo(WcStatus.SUCCESS);
        Side x2 = h.side(h.a, 1 << 16, new QpCap(64, 64, 2, 2, 64), true, null, null);
        Side y2 = h.side(h.b, 1 << 16, new QpCap(64, 64, 2, 2, 64), true, null, y.pd);
        Harness.connect(x2, y2, new Harness.Params());
        sb.clear(0).wrId(0, 1).opcode(0, WrOpcode.RDMA_WRITE).rdma(0, y.mr.address() + WINDOW + 8, rkey)
                .single(0, x2.mr.address(), 8, x2.mr.lkey());
        x2.qp.postSend(sb, 1);
        assertThat(one(x2, true).status(0)).isEqualTo(WcStatus.SUCCESS);
        // unbinding (no region, length 0) takes the access away; LOCAL_INV cannot end a type 1 window
        int unbound = y.qp.bindMemoryWindow(mw, 78, SendFlags.SIGNALED, null, 0, 0, 0);
        assertThat(one(y, true).status(0)).isEqualTo(WcStatus.SUCCESS);
        assertThat(unbound).isNotEqualTo(rkey);
        assertThat(writeFromX(WINDOW, 8, unbound)).isEqualTo(WcStatus.REM_ACCESS_ERR);
        assertThatThrownBy(() -> y2.qp.bindMemoryWindow(y.pd.allocMemoryWindow(MemoryWindow.Type.TYPE_2), 1, 0, y.mr,
                y.mr.address(), 8, WRITE)).isInstanceOf(RdmaException.class)
                .satisfies(e -> assertThat(((RdmaException) e).errno()).isEqualTo(Errno.EINVAL));
        mw.close();
    }

    @Test
    void bindErrorsCompleteWithMwBindErrAndPostTimeErrorsAreRefused() {
        MemoryRegion noBind = y.pd.registerMemory(h.arena.allocate(4096, 8), EnumSet.of(Access.LOCAL_WRITE));
        MemoryWindow mw = y.pd.allocMemoryWindow(MemoryWindow.Type.TYPE_2);
        int rkey = MemoryWindow.nextRkey(mw.rkey());
        sb.clear(0).wrId(0, 9).opcode(0, WrOpcode.BIND_MW).bindMw(0, mw, rkey, noBind, noBind.address(), 64, READ);
        y.qp.postSend(sb, 1);
        CompletionBatch wc = one(y, true);
        assertThat(wc.status(0)).as("a region registered without MW_BIND").isEqualTo(WcStatus.MW_BIND_ERR);
        assertThat(y.qp.state()).isEqualTo(QpState.ERR);
        MemoryWindow t1 = y.pd.allocMemoryWindow(MemoryWindow.Type.TYPE_1);
        reconnect();
        sb.clear(0).wrId(0, 9).opcode(0, WrOpcode.BIND_MW).bindMw(0, t1, t1.rkey(), y.mr, y.mr.address(), 64, READ);
        assertThatThrownBy(() -> y.qp.postSend(sb, 1)).as("type 1 windows are bound with the verb")
                .isInstanceOf(PostException.class);
        // a window outside its region, and LOCAL_INV of a key that is no window's
        sb.clear(0).wrId(0, 9).opcode(0, WrOpcode.BIND_MW)
                .bindMw(0, mw, rkey, y.mr, y.mr.address() + y.mr.length() - 8, 64, READ);
        y.qp.postSend(sb, 1);
        assertThat(one(y, true).status(0)).isEqualTo(WcStatus.MW_BIND_ERR);
        reconnect();
        sb.clear(0).wrId(0, 10).opcode(0, WrOpcode.LOCAL_INV).invalidateRkey(0, y.mr.rkey());
        y.qp.postSend(sb, 1);
        assertThat(one(y, true).status(0)).as("LOCAL_INV of a region").isEqualTo(WcStatus.LOC_QP_OP_ERR);
        mw.close();
        t1.close();
        noBind.close();
    }

    @Test
    void aPeerThatKeepsGuessingKeysIsCutOff() throws Exception {
        SoftDevice owner = ((SoftProtectionDomain) y.pd).softDevice();
        owner.accessGuard().limits(3, Duration.ofSeconds(30), Duration.ofSeconds(30));
        int attacker = Ipv4.toInt((Inet4Address) InetAddress.getByName("127.0.0.2"));
        for (int guess = 0; guess < 3; guess++) {
            assertThat(writeFromX(WINDOW, 8, 0x1234500 + guess)).isEqualTo(WcStatus.REM_ACCESS_ERR);
            reconnect();
        }
        assertThat(owner.accessGuard().errors(attacker)).isEqualTo(3);
        assertThat(owner.accessGuard().isBlocked(attacker)).isTrue();
        // now even a request with the right key is not answered: the packets are dropped on arrival
        MemoryWindow mw = y.pd.allocMemoryWindow(MemoryWindow.Type.TYPE_2);
        int rkey = bindOnY(mw, WRITE);
        long before = owner.accessGuard().droppedPackets();
        x.buf.asSlice(0, 8).fill((byte) 0x11);
        sb.clear(0).wrId(0, 1).opcode(0, WrOpcode.RDMA_WRITE).rdma(0, y.mr.address() + WINDOW, rkey)
                .single(0, x.mr.address(), 8, x.mr.lkey());
        x.qp.postSend(sb, 1);
        assertThat(Harness.pollAtLeast(x.scq, x.wc, 1, Duration.ofMillis(500))).isZero();
        assertThat(owner.accessGuard().droppedPackets()).isGreaterThan(before);
        assertUntouchedOutside(0, 0);
        mw.close();
    }
}
