package dev.ibex.softroce.transport;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.Access;
import dev.ibex.cm.spi.MemoryRegion;
import dev.ibex.cm.spi.ProtectionDomain;
import java.lang.foreign.MemorySegment;

/**
 * {@code ibv_mr} over a native segment. The key is 32 random bits, the upper 24 naming the region in the device's
 * key table ({@link KeyTable}), so a peer given one key cannot derive another and a stale key of a closed region
 * matches a new one only by chance; lkey and rkey are the same value, as in rxe. Access flags are checked by the
 * transport on every use ({@link #check}).
 */
public final class SoftMemoryRegion implements MemoryRegion {
    /** {@link #check} results. */
    public static final int OK = 0;
    public static final int BAD_RANGE = 1;
    public static final int NO_ACCESS = 2;

    private final SoftProtectionDomain pd;
    private final MemorySegment segment;
    private final long address;
    private final long length;
    private final int access;
    private final int key;
    private final java.util.concurrent.atomic.AtomicInteger windows = new java.util.concurrent.atomic.AtomicInteger();
    private volatile boolean closed;

    SoftMemoryRegion(SoftProtectionDomain pd, MemorySegment segment, int access) {
        this.pd = pd;
        this.segment = segment;
        this.address = segment.address();
        this.length = segment.byteSize();
        this.access = access;
        SoftDevice d = pd.softDevice();
        this.key = d.registerMemoryKey(this, "ibv_reg_mr");
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
    public MemorySegment segment() {
        return segment;
    }

    @Override
    public long address() {
        return address;
    }

    @Override
    public long length() {
        return length;
    }

    @Override
    public int lkey() {
        return key;
    }

    @Override
    public int rkey() {
        return key;
    }

    @Override
    public int access() {
        return access;
    }

    int key() {
        return key;
    }

    /**
     * Whether {@code [addr, addr + len)} lies inside the region and {@code requiredAccess} ({@link Access} bits;
     * 0 for a local read) is granted.
     *
     * @return {@link #OK}, {@link #BAD_RANGE} or {@link #NO_ACCESS}
     */
    public int check(long addr, long len, int requiredAccess) {
        if ((access & requiredAccess) != requiredAccess) {
            return NO_ACCESS;
        }
        if (len < 0 || addr - address < 0 || addr - address > length - len) {
            return BAD_RANGE;
        }
        return OK;
    }

    /**
     * Whether the region is still registered. Its rkey cannot be invalidated remotely: SEND_WITH_INV only ends memory
     * windows (the IBA allows it for fast-registered regions, which the soft device does not have; rxe refuses it for
     * user regions too).
     */
    public boolean remoteValid() {
        return !closed;
    }

    /** A memory window was bound to the region ({@code ibv_dereg_mr} fails while any is). */
    void addWindow() {
        windows.incrementAndGet();
    }

    void removeWindow() {
        windows.decrementAndGet();
    }

    /** Memory windows bound to the region now. */
    public int boundWindows() {
        return windows.get();
    }

    /** The offset of native address {@code addr} in {@link #segment()}. */
    public long offsetOf(long addr) {
        return addr - address;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        int n = windows.get();
        if (n > 0) {
            throw new RdmaException("ibv_dereg_mr", Errno.EBUSY, n + " memory window(s) are bound to the region:"
                    + " invalidate or deallocate them first");
        }
        closed = true;
        pd.softDevice().unregisterMemoryKey(key, this);
        pd.removeChild();
        pd.softDevice().tracker().closed(this);
    }

    @Override
    public String toString() {
        return "SoftMemoryRegion[key=0x" + Integer.toHexString(key) + " len=" + length + " access=" + access + "]";
    }
}
