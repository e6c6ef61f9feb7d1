package dev.ibex.softroce.verbs;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.cm.spi.Access;
import dev.ibex.cm.spi.MemoryRegion;
import dev.ibex.cm.spi.ProtectionDomain;
import java.lang.foreign.MemorySegment;

/**
 * {@code ibv_mr} over a native segment. The key is {@code index << 8 | tag} in the device's MR table, so a stale
 * key of a closed region never matches a new one; lkey and rkey are the same value, as in rxe. Access flags are
 * checked by the transport on every use ({@link #check}).
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
    private final int index;
    private final int key;
    private volatile boolean closed;
    private volatile boolean remoteInvalidated;

    SoftMemoryRegion(SoftProtectionDomain pd, MemorySegment segment, int access) {
        this.pd = pd;
        this.segment = segment;
        this.address = segment.address();
        this.length = segment.byteSize();
        this.access = access;
        SoftDevice d = pd.softDevice();
        int[] slot = d.registerMemoryRegion(this);
        if (slot == null) {
            throw new RdmaException("ibv_reg_mr", Errno.ENOMEM, "the device's MR table is full ("
                    + d.queryDevice().maxMr() + ")");
        }
        this.index = slot[0];
        this.key = slot[1];
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

    int index() {
        return index;
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

    /** Whether remote peers may still use the rkey (a SEND with invalidate revokes it). */
    public boolean remoteValid() {
        return !remoteInvalidated && !closed;
    }

    /**
     * Revokes remote access through the rkey (the target of a SEND_WITH_INV).
     *
     * @return {@code false} if it was revoked already
     */
    public boolean invalidateRemote() {
        if (remoteInvalidated) {
            return false;
        }
        remoteInvalidated = true;
        return true;
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
        closed = true;
        pd.softDevice().unregisterMemoryRegion(this);
        pd.removeChild();
        pd.softDevice().tracker().closed(this);
    }

    @Override
    public String toString() {
        return "SoftMemoryRegion[key=0x" + Integer.toHexString(key) + " len=" + length + " access=" + access + "]";
    }
}
