package dev.ibex.softroce.transport;

import dev.ibex.cm.spi.Access;
import dev.ibex.cm.spi.MemoryWindow;
import dev.ibex.cm.spi.ProtectionDomain;
import dev.ibex.cm.spi.WcStatus;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code ibv_mw} (rxe {@code rxe_mw.c}): a window onto part of a {@link SoftMemoryRegion}, reached remotely with its
 * own rkey. Type 2 windows start free, are bound by a BIND_MW work request to the QP that posts it, and only requests
 * arriving on that QP may use them; LOCAL_INV, the bound peer's SEND_WITH_INV or deallocation make them free again.
 * Type 1 windows are bound by {@link SoftQueuePair#bindMemoryWindow} and serve every QP of the PD; binding one with
 * length 0 takes its access away. Each binding gives the window a new rkey whose upper 24 bits stay (they name the
 * window in the device's key table) and whose low 8 bits are the consumer's key, so a descriptor of an earlier binding
 * stops working.
 *
 * <p>A binding is one immutable {@link Binding} published with a volatile write, so the responder, which checks it on
 * a receive thread, never sees half of one. The responder {@link #enter}s the window for the length of one copy;
 * invalidating (which runs in the send task of a QP, or in the bound QP's own receive task for SEND_WITH_INV) clears
 * the binding first and then waits for copies in progress, so once LOCAL_INV has completed no byte moves through the
 * window any more — the memory under it can be reused at once.
 *
 * <p>Threading: {@link #enter}/{@link #exit} lock-free from any receive thread; binding, invalidating and
 * {@link #close} under the window's monitor (send tasks, the bound QP's receive task, any thread).
 */
public final class SoftMemoryWindow implements MemoryWindow {
    /**
     * One binding.
     *
     * @param rkey the window's key while bound
     * @param mr the region under the window
     * @param qp the only QP that may use it (type 2), or {@code null} (type 1)
     */
    record Binding(int rkey, SoftMemoryRegion mr, long addr, long length, int access, SoftQueuePair qp) {}

    private final SoftProtectionDomain pd;
    private final Type type;
    private final int index;
    private final AtomicInteger users = new AtomicInteger();
    /** The key of the latest binding (or the allocation's); what {@link #rkey()} reports. */
    private volatile int rkey;
    private volatile Binding binding;
    private volatile boolean closed;

    SoftMemoryWindow(SoftProtectionDomain pd, Type type) {
        this.pd = pd;
        this.type = type;
        SoftDevice d = pd.softDevice();
        this.rkey = d.registerMemoryKey(this, "ibv_alloc_mw");
        this.index = rkey >>> 8;
        pd.addChild();
        d.tracker().opened(this);
    }

    @Override
    public ProtectionDomain pd() {
        return pd;
    }

    public SoftProtectionDomain softPd() {
        return pd;
    }

    @Override
    public Type type() {
        return type;
    }

    @Override
    public int rkey() {
        return rkey;
    }

    /** The window's name in the device's key table: the upper 24 bits of every rkey it has. */
    @Override
    public long handle() {
        return index;
    }

    /** Whether a binding is in force (a type 2 window is VALID, not FREE). */
    public boolean isBound() {
        return binding != null;
    }

    /**
     * Starts one remote access through the window (rxe {@code rxe_lookup_mw} + the range check): the region under it
     * when {@code rkey} is the current key, {@code qp} may use the window, {@code access} ({@link Access} bits) is
     * granted and {@code [va, va + len)} lies inside the window; else {@code null}. After a non-null result the
     * caller copies and then calls {@link #exit}.
     */
    public SoftMemoryRegion enter(int rkey, SoftQueuePair qp, long va, long len, int access) {
        users.incrementAndGet(); // before reading the binding: an invalidation that misses us waits for us
        Binding b = binding;
        if (b == null || b.rkey != rkey || (b.qp != null && b.qp != qp) || pd != qp.softPd()
                || (b.access & access) != access || len < 0 || va - b.addr < 0 || va - b.addr > b.length - len
                || b.mr.check(va, len, 0) != SoftMemoryRegion.OK || !b.mr.remoteValid()) {
            users.decrementAndGet();
            return null;
        }
        return b.mr;
    }

    /** Ends an access that {@link #enter} allowed. */
    public void exit() {
        users.decrementAndGet();
    }

    /**
     * Executes a bind (rxe {@code rxe_bind_mw}: the checks of {@code rxe_check_bind_mw}, then the new binding).
     *
     * @param qp the QP the bind was posted on (a type 2 window is bound to it)
     * @param newRkey the rkey named in the work request: its upper 24 bits must be the window's
     * @param mr the region, or {@code null} with length 0 to unbind a type 1 window
     * @return 0, or {@link WcStatus#MW_BIND_ERR}'s code
     */
    public synchronized int bind(SoftQueuePair qp, int newRkey, SoftMemoryRegion mr, long addr, long length, int access) {
        int error = WcStatus.MW_BIND_ERR.code();
        if (closed || (newRkey >>> 8) != index || qp.softPd() != pd) {
            return error;
        }
        if (type == Type.TYPE_2 && (binding != null || mr == null || length == 0)) {
            return error; // o10-37.2.30: only a free type 2 window can be bound; o10-37.2.40: to some memory
        }
        if (mr == null) {
            if (addr != 0 || length != 0) {
                return error;
            }
        } else if (mr.softPd() != pd || !mr.remoteValid() || (mr.access() & Access.MW_BIND.bit()) == 0
                || ((access & (Access.REMOTE_WRITE.bit() | Access.REMOTE_ATOMIC.bit())) != 0
                        && (mr.access() & Access.LOCAL_WRITE.bit()) == 0)
                || length < 0 || mr.check(addr, length, 0) != SoftMemoryRegion.OK) {
            return error; // C10-73 (MW_BIND), C10-74 (write needs local write), C10-75 (inside the region)
        }
        if ((access & ~(Access.REMOTE_READ.bit() | Access.REMOTE_WRITE.bit() | Access.REMOTE_ATOMIC.bit())) != 0) {
            return error; // a window grants remote rights only (zero-based windows are not supported)
        }
        Binding old = binding;
        if (old != null) {
            binding = null;
            awaitUsers();
            old.mr.removeWindow();
        }
        if (mr != null && length > 0) {
            mr.addWindow();
            binding = new Binding(newRkey, mr, addr, length, access, type == Type.TYPE_2 ? qp : null);
        }
        rkey = newRkey;
        return 0;
    }

    /**
     * Invalidates a type 2 window (rxe {@code rxe_invalidate_mw}): LOCAL_INV posted on a QP of the PD, or the peer's
     * SEND_WITH_INV, which must arrive on the QP the window is bound to. Returns once no access through it is in
     * progress.
     *
     * @param remote whether the peer asked (SEND_WITH_INV), so {@code qp} must be the bound QP
     * @return whether the window was invalidated ({@code false}: wrong key, type 1, not bound, other QP or PD)
     */
    public synchronized boolean invalidate(int rkey, SoftQueuePair qp, boolean remote) {
        Binding b = binding;
        if (type != Type.TYPE_2 || b == null || b.rkey != rkey || qp.softPd() != pd || (remote && b.qp != qp)) {
            return false;
        }
        binding = null;
        awaitUsers();
        b.mr.removeWindow();
        return true;
    }

    /** Waits for accesses that entered before the binding was cleared; each is one copy of at most an MTU. */
    private void awaitUsers() {
        while (users.get() != 0) {
            Thread.onSpinWait();
        }
    }

    /** {@code ibv_dealloc_mw}: ends any binding. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        Binding b = binding;
        binding = null;
        awaitUsers();
        if (b != null) {
            b.mr.removeWindow();
        }
        pd.softDevice().unregisterMemoryKey(rkey, this);
        pd.removeChild();
        pd.softDevice().tracker().closed(this);
    }

    @Override
    public String toString() {
        Binding b = binding;
        return "SoftMemoryWindow[" + type + " rkey=0x" + Integer.toHexString(rkey)
                + (b == null ? " unbound" : " [0x" + Long.toHexString(b.addr) + ", +" + b.length + ") access="
                        + b.access + (b.qp == null ? "" : " qp 0x" + Integer.toHexString(b.qp.qpNum())))
                + "]";
    }
}
