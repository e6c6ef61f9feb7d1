package dev.ibex.it.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.spi.Access;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.MemoryRegion;
import dev.ibex.cm.spi.MemoryWindow;
import dev.ibex.cm.spi.SendBatch;
import dev.ibex.cm.spi.SendFlags;
import dev.ibex.cm.spi.WcFlags;
import dev.ibex.cm.spi.WcOpcode;
import dev.ibex.cm.spi.WcStatus;
import dev.ibex.cm.spi.WrOpcode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Type 2 memory windows through the SPI (issue 14): bound with BIND_MW on the owner's QP, they grant their rights over
 * their range to that QP's peer only, and end with LOCAL_INV or the peer's SEND_WITH_INV. Whether a window confines
 * access to its own range is what {@code DeviceContext.enforcesWindowBounds()} says (Linux rxe checks the region
 * under it only); the exposure API relies on that answer. A device without windows gets no test here (the
 * capability gate): cm-core's fake checks the typed ENOTSUP.
 */
public interface MemoryWindowConformance extends Conformance {
    int WINDOW_AT = 8192;
    int WINDOW_LENGTH = 4096;

    private Completion one(CompletionQueue cq) {
        List<Completion> got = pump().completions(cq, 1);
        assertThat(got).hasSize(1);
        return got.get(0);
    }

    /** The owner's memory: 64 KiB registered for local write and window binds only. */
    private MemoryRegion windowRegion(RcPair p) {
        MemorySegment s = scope().arena().allocate(64 * 1024, 4096);
        s.fill((byte) 0x5A);
        return scope().add(p.serverPd.registerMemory(s, EnumSet.of(Access.LOCAL_WRITE, Access.MW_BIND)));
    }

    /** Binds a fresh type 2 window over {@code [WINDOW_AT, +WINDOW_LENGTH)} on the server QP; returns its rkey. */
    private int bind(RcPair p, MemoryRegion mr, MemoryWindow mw, int access) {
        int rkey = MemoryWindow.nextRkey(mw.rkey());
        SendBatch b = sends(1, 1);
        b.wrId(0, 77).opcode(0, WrOpcode.BIND_MW).flags(0, SendFlags.SIGNALED).numSge(0, 0)
                .bindMw(0, mw, rkey, mr, mr.address() + WINDOW_AT, WINDOW_LENGTH, access);
        p.serverQp.postSend(b, 1);
        Completion c = one(p.serverCq);
        assertThat(c.status()).as("bind: %s", c).isEqualTo(WcStatus.SUCCESS);
        assertThat(WcOpcode.name(c.opcode())).isEqualTo("BIND_MW");
        return rkey;
    }

    private WcStatus clientWrite(RcPair p, long address, int rkey, int length) {
        p.clientMem.segment().asSlice(0, length).fill((byte) 0x11);
        SendBatch b = sends(1, 1);
        b.wrId(0, 1).opcode(0, WrOpcode.RDMA_WRITE).flags(0, SendFlags.SIGNALED)
                .single(0, p.clientMem.address(0), length, p.clientMem.lkey()).rdma(0, address, rkey);
        p.clientQp.postSend(b, 1);
        return one(p.clientCq).status();
    }

    private MemoryWindow window(RcPair p) {
        return scope().add(p.serverPd.allocMemoryWindow(MemoryWindow.Type.TYPE_2));
    }

    /** An RC pair on a device that has type 2 windows (the test is skipped elsewhere, with the reason). */
    private RcPair windowPair() {
        RcPair p = RcPair.connect(this);
        org.junit.jupiter.api.Assumptions.assumeTrue(p.serverPd.device().queryDevice().supportsMemoryWindows(),
                "the device has no type 2 memory windows");
        return p;
    }

    @Test
    default void aType2WindowGrantsItsRangeAndRights() {
        RcPair p = windowPair();
        MemoryRegion mr = windowRegion(p);
        MemoryWindow mw = window(p);
        int rkey = bind(p, mr, mw, Access.REMOTE_WRITE.bit());
        assertThat(rkey >>> 8).as("a binding keeps the window's upper 24 bits").isEqualTo(mw.rkey() >>> 8);
        assertThat(clientWrite(p, mr.address() + WINDOW_AT, rkey, WINDOW_LENGTH)).isEqualTo(WcStatus.SUCCESS);
        assertThat(mr.segment().get(ValueLayout.JAVA_BYTE, WINDOW_AT + WINDOW_LENGTH - 1)).isEqualTo((byte) 0x11);
        // READ was not granted
        SendBatch b = sends(1, 1);
        b.wrId(0, 2).opcode(0, WrOpcode.RDMA_READ).flags(0, SendFlags.SIGNALED)
                .single(0, p.clientMem.address(0), 8, p.clientMem.lkey()).rdma(0, mr.address() + WINDOW_AT, rkey);
        p.clientQp.postSend(b, 1);
        assertThat(one(p.clientCq).status()).isEqualTo(WcStatus.REM_ACCESS_ERR);
    }

    @Test
    default void theRegionsKeyGivesNoRemoteAccess() {
        RcPair p = windowPair();
        MemoryRegion mr = windowRegion(p);
        assertThat(clientWrite(p, mr.address(), mr.rkey(), 8)).isEqualTo(WcStatus.REM_ACCESS_ERR);
        assertThat(mr.segment().get(ValueLayout.JAVA_BYTE, 0)).isEqualTo((byte) 0x5A);
    }

    @Test
    default void localInvalidateEndsTheWindow() {
        RcPair p = windowPair();
        MemoryRegion mr = windowRegion(p);
        MemoryWindow mw = window(p);
        int rkey = bind(p, mr, mw, Access.REMOTE_WRITE.bit());
        SendBatch b = sends(1, 1);
        b.wrId(0, 78).opcode(0, WrOpcode.LOCAL_INV).flags(0, SendFlags.SIGNALED).numSge(0, 0).invalidateRkey(0, rkey);
        p.serverQp.postSend(b, 1);
        Completion c = one(p.serverCq);
        assertThat(c.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(WcOpcode.name(c.opcode())).isEqualTo("LOCAL_INV");
        assertThat(clientWrite(p, mr.address() + WINDOW_AT, rkey, 8)).isEqualTo(WcStatus.REM_ACCESS_ERR);
        assertThat(mr.segment().get(ValueLayout.JAVA_BYTE, WINDOW_AT)).isEqualTo((byte) 0x5A);
    }

    @Test
    default void thePeersSendWithInvalidateEndsTheWindow() {
        RcPair p = windowPair();
        MemoryRegion mr = windowRegion(p);
        MemoryWindow mw = window(p);
        int rkey = bind(p, mr, mw, Access.REMOTE_WRITE.bit());
        SendBatch b = sends(1, 1);
        b.wrId(0, 3).opcode(0, WrOpcode.SEND_WITH_INV).flags(0, SendFlags.SIGNALED)
                .single(0, p.clientMem.address(0), 4, p.clientMem.lkey()).invalidateRkey(0, rkey);
        p.clientQp.postSend(b, 1);
        Completion r = one(p.serverCq);
        assertThat(r.status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(r.flags() & WcFlags.WITH_INV).as("IBV_WC_WITH_INV in %s", r).isNotZero();
        assertThat(Integer.reverseBytes(r.immData())).as("invalidated rkey").isEqualTo(rkey);
        assertThat(one(p.clientCq).status()).isEqualTo(WcStatus.SUCCESS);
        assertThat(clientWrite(p, mr.address() + WINDOW_AT, rkey, 8)).isEqualTo(WcStatus.REM_ACCESS_ERR);
    }

    @Test
    default void aWindowServesOnlyTheQpItIsBoundTo() {
        RcPair owner = windowPair();
        RcPair other = RcPair.connect(this, new RcPair.Options().serverSide(owner.serverPd, owner.serverCq,
                owner.serverMem).serverReceives(0, 0));
        MemoryRegion mr = windowRegion(owner);
        MemoryWindow mw = window(owner);
        int rkey = bind(owner, mr, mw, Access.REMOTE_WRITE.bit());
        assertThat(clientWrite(other, mr.address() + WINDOW_AT, rkey, 8)).as("from another QP of the same PD")
                .isEqualTo(WcStatus.REM_ACCESS_ERR);
        assertThat(mr.segment().get(ValueLayout.JAVA_BYTE, WINDOW_AT)).isEqualTo((byte) 0x5A);
        assertThat(clientWrite(owner, mr.address() + WINDOW_AT, rkey, 8)).isEqualTo(WcStatus.SUCCESS);
    }

    @Test
    default void windowBoundsAreWhatTheDeviceSays() {
        RcPair p = windowPair();
        MemoryRegion mr = windowRegion(p);
        MemoryWindow mw = window(p);
        int rkey = bind(p, mr, mw, Access.REMOTE_WRITE.bit());
        WcStatus past = clientWrite(p, mr.address() + WINDOW_AT + WINDOW_LENGTH, rkey, 8);
        if (p.serverPd.device().enforcesWindowBounds()) {
            assertThat(past).as("a WRITE just past the window, inside the region").isEqualTo(WcStatus.REM_ACCESS_ERR);
            assertThat(mr.segment().get(ValueLayout.JAVA_BYTE, WINDOW_AT + WINDOW_LENGTH)).isEqualTo((byte) 0x5A);
        } else {
            // Linux rxe: only the region's bounds are checked. The exposure API binds windows over a region of
            // exactly the exposed bytes there (WINDOW_OVER_REGION); if this ever fails, rxe was fixed.
            assertThat(past).as("rxe lets a window reach its whole region").isEqualTo(WcStatus.SUCCESS);
        }
    }
}
