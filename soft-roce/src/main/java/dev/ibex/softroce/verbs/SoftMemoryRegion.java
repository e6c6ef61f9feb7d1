package dev.ibex.softroce.verbs;

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
    private volatile boolean closed;
    private volatile boolean remoteInvalidated;

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
        pd.softDevice().unregisterMemoryKey(key, this);
        pd.removeChild();
        pd.softDevice().tracker().closed(this);
    }

    @Override
    public String toString() {
        return "SoftMemoryRegion[key=0x" + Integer.toHexString(key) + " len=" + length + " access=" + access + "]";
    }
}
