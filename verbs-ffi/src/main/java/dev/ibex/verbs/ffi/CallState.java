package dev.ibex.verbs.ffi;

import java.lang.foreign.Arena;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * Per-thread native scratch memory: the segment the linker writes {@code errno} into
 * ({@link Linker.Option#captureCallState}) and a few out-parameter slots ({@code struct rdma_cm_id **},
 * {@code int *num_devices}, one {@code struct epoll_event}, an 8-byte eventfd counter …).
 *
 * <p>Also a block for the structs a call passes in ({@code sockaddr}s, {@code rdma_conn_param},
 * {@code ibv_qp_init_attr_ex} …): {@link #structs()} hands out zeroed slices of it, so connection setup does not
 * create and close an arena per call.
 *
 * <p>Allocated once per thread from an automatic arena, so the happy path of every binding allocates
 * nothing. A wrapper reads its out slots and errno right after its own call, before calling anything else;
 * that is the only rule that makes sharing the slots safe.
 */
public final class CallState {
    private static final StructLayout CAPTURE_LAYOUT = Linker.Option.captureStateLayout();
    private static final long ERRNO_OFFSET = CAPTURE_LAYOUT.byteOffset(MemoryLayout.PathElement.groupElement("errno"));
    private static final long CAPTURE_SIZE = (CAPTURE_LAYOUT.byteSize() + 7) & ~7L;
    private static final long SLOT = 16;
    /** Room for the in-structs of one call: two sockaddr_storage, or a conn param with 196 bytes of private data. */
    private static final long STRUCTS = 1024;
    private static final ThreadLocal<CallState> CURRENT = ThreadLocal.withInitial(CallState::new);

    final MemorySegment capture;
    /** Pointer-sized out slot 0 (also used for int and 8-byte values). */
    final MemorySegment out0;
    /** Pointer-sized out slot 1. */
    final MemorySegment out1;
    /** Room for one {@code struct epoll_event} or other small in-parameters. */
    final MemorySegment small;
    private final MemorySegment structs;
    private final SegmentAllocator structAllocator = this::slice;
    private long structsUsed;

    private CallState() {
        MemorySegment all = Arena.ofAuto().allocate(CAPTURE_SIZE + 3 * SLOT + STRUCTS, 16);
        capture = all.asSlice(0, CAPTURE_SIZE);
        out0 = all.asSlice(CAPTURE_SIZE, 8);
        out1 = all.asSlice(CAPTURE_SIZE + SLOT, 8);
        small = all.asSlice(CAPTURE_SIZE + 2 * SLOT, SLOT);
        structs = all.asSlice(CAPTURE_SIZE + 3 * SLOT, STRUCTS);
    }

    /**
     * This thread's struct scratch, emptied: an allocator of zeroed slices of a per-thread block (1 KiB in all). What
     * it hands out stays valid until the next call of this method on this thread, so a wrapper fills its structs,
     * makes its downcall and reads them back before calling anything else that uses it.
     *
     * @return the allocator; it throws {@link IllegalStateException} when a call asks for more than the block holds
     */
    public SegmentAllocator structs() {
        structsUsed = 0;
        return structAllocator;
    }

    private MemorySegment slice(long size, long alignment) {
        long base = structs.address();
        long at = ((base + structsUsed + alignment - 1) & -alignment) - base;
        if (at + size > STRUCTS) {
            throw new IllegalStateException("a call's structs need more than " + STRUCTS + " bytes of scratch");
        }
        structsUsed = at + size;
        return structs.asSlice(at, size).fill((byte) 0);
    }

    /** This thread's scratch. */
    public static CallState current() {
        return CURRENT.get();
    }

    /** The segment to pass as the leading capture-state argument of an errno-capturing downcall. */
    public MemorySegment capture() {
        return capture;
    }

    /** The errno captured by the last errno-capturing downcall made on this thread. */
    public int errno() {
        return capture.get(ValueLayout.JAVA_INT, ERRNO_OFFSET);
    }

    /** Clears out slot 0 and returns it (a {@code T **} or {@code int *} argument). */
    MemorySegment clearedOut0() {
        out0.set(ValueLayout.JAVA_LONG, 0, 0L);
        return out0;
    }

    /** Clears out slot 1 and returns it. */
    MemorySegment clearedOut1() {
        out1.set(ValueLayout.JAVA_LONG, 0, 0L);
        return out1;
    }

    MemorySegment pointer0() {
        return out0.get(ValueLayout.ADDRESS, 0);
    }

    MemorySegment pointer1() {
        return out1.get(ValueLayout.ADDRESS, 0);
    }
}
