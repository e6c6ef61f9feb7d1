package dev.ibex.verbs.ffi;

import static dev.ibex.verbs.ffi.struct.Layouts.PTR;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.ibex.verbs.ffi.struct.IbvQpEx;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.ByteOrder;

/**
 * The {@code ibv_wr_*} verbs of one {@code struct ibv_qp_ex}: like {@code ibv_post_send} they are {@code static
 * inline} in {@code verbs.h} and call the provider through function pointers, here the QP's own
 * ({@link IbvQpEx}), which the provider sets for the operations the QP was created with. The pointers are read once,
 * when this object is made for a QP; the downcall handles are built once per signature for the JVM and use
 * {@link ContextOps#CRITICAL critical(false)} like the post verbs (they never block nor call back). A builder whose
 * pointer is NULL is not called: check {@link #supports} first.
 *
 * <p>Immediate data is passed as C's {@code __be32}: the caller gives it in host order and it is swapped here.
 * Threading: the object is immutable; {@link #start} to {@link #complete}/{@link #abort} is a critical section that
 * the provider locks (rxe holds the send queue's spinlock), so one thread builds at a time and always ends it.
 */
public final class QpExOps {
    private static final boolean LITTLE = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;
    private static final Linker.Option[] OPTIONS = ContextOps.CRITICAL
            ? new Linker.Option[] {Linker.Option.critical(false)}
            : new Linker.Option[0];
    /** {@code void (*)(qpx)}: wr_start, wr_abort, wr_send. */
    private static final MethodHandle V_P = Downcalls.pointer(FunctionDescriptor.ofVoid(PTR), OPTIONS);
    /** {@code int (*)(qpx)}: wr_complete. */
    private static final MethodHandle I_P = Downcalls.pointer(FunctionDescriptor.of(JAVA_INT, PTR), OPTIONS);
    /** {@code void (*)(qpx, uint32_t)}: wr_send_imm, wr_send_inv, wr_local_inv. */
    private static final MethodHandle V_PI = Downcalls.pointer(FunctionDescriptor.ofVoid(PTR, JAVA_INT), OPTIONS);
    /** {@code void (*)(qpx, uint32_t, uint64_t)}: wr_rdma_read, wr_rdma_write. */
    private static final MethodHandle V_PIL = Downcalls.pointer(FunctionDescriptor.ofVoid(PTR, JAVA_INT, JAVA_LONG),
            OPTIONS);
    /** {@code void (*)(qpx, uint32_t, uint64_t, uint32_t)}: wr_rdma_write_imm, wr_set_sge. */
    private static final MethodHandle V_PILI = Downcalls.pointer(
            FunctionDescriptor.ofVoid(PTR, JAVA_INT, JAVA_LONG, JAVA_INT), OPTIONS);
    /** {@code void (*)(qpx, uint32_t, uint64_t, uint64_t)}: wr_atomic_fetch_add. */
    private static final MethodHandle V_PILL = Downcalls.pointer(
            FunctionDescriptor.ofVoid(PTR, JAVA_INT, JAVA_LONG, JAVA_LONG), OPTIONS);
    /** {@code void (*)(qpx, uint32_t, uint64_t, uint64_t, uint64_t)}: wr_atomic_cmp_swp. */
    private static final MethodHandle V_PILLL = Downcalls.pointer(
            FunctionDescriptor.ofVoid(PTR, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG), OPTIONS);
    /** {@code void (*)(qpx, struct ibv_ah *, uint32_t, uint32_t)}: wr_set_ud_addr (pointer as a 64-bit address). */
    private static final MethodHandle V_PLII = Downcalls.pointer(
            FunctionDescriptor.ofVoid(PTR, JAVA_LONG, JAVA_INT, JAVA_INT), OPTIONS);
    /**
     * {@code void (*)(qpx, void *, size_t)} and {@code void (*)(qpx, size_t, const void *)}: wr_set_inline_data,
     * wr_set_sge_list, wr_set_inline_data_list. Pointers travel as 64-bit addresses (the same register class on
     * x86_64 and aarch64), so no segment is made per call.
     */
    private static final MethodHandle V_PLL = Downcalls.pointer(FunctionDescriptor.ofVoid(PTR, JAVA_LONG, JAVA_LONG),
            OPTIONS);

    private final MemorySegment qpx;
    private final MemorySegment start;
    private final MemorySegment complete;
    private final MemorySegment abort;
    private final MemorySegment send;
    private final MemorySegment sendImm;
    private final MemorySegment sendInv;
    private final MemorySegment rdmaWrite;
    private final MemorySegment rdmaWriteImm;
    private final MemorySegment rdmaRead;
    private final MemorySegment atomicCmpSwp;
    private final MemorySegment atomicFetchAdd;
    private final MemorySegment localInv;
    private final MemorySegment setSge;
    private final MemorySegment setSgeList;
    private final MemorySegment setInlineData;
    private final MemorySegment setInlineDataList;
    private final MemorySegment setUdAddr;

    private QpExOps(MemorySegment qpx) {
        this.qpx = qpx;
        this.start = IbvQpEx.wrStartFn(qpx);
        this.complete = IbvQpEx.wrCompleteFn(qpx);
        this.abort = IbvQpEx.wrAbortFn(qpx);
        this.send = IbvQpEx.wrSendFn(qpx);
        this.sendImm = IbvQpEx.wrSendImmFn(qpx);
        this.sendInv = IbvQpEx.wrSendInvFn(qpx);
        this.rdmaWrite = IbvQpEx.wrRdmaWriteFn(qpx);
        this.rdmaWriteImm = IbvQpEx.wrRdmaWriteImmFn(qpx);
        this.rdmaRead = IbvQpEx.wrRdmaReadFn(qpx);
        this.atomicCmpSwp = IbvQpEx.wrAtomicCmpSwpFn(qpx);
        this.atomicFetchAdd = IbvQpEx.wrAtomicFetchAddFn(qpx);
        this.localInv = IbvQpEx.wrLocalInvFn(qpx);
        this.setSge = IbvQpEx.wrSetSgeFn(qpx);
        this.setSgeList = IbvQpEx.wrSetSgeListFn(qpx);
        this.setInlineData = IbvQpEx.wrSetInlineDataFn(qpx);
        this.setInlineDataList = IbvQpEx.wrSetInlineDataListFn(qpx);
        this.setUdAddr = IbvQpEx.wrSetUdAddrFn(qpx);
    }

    /**
     * Reads the function pointers of {@code qpx} (what {@link QueuePairs#qpToQpEx} returned); valid until the QP is
     * destroyed.
     *
     * @param qpx the {@code struct ibv_qp_ex *}
     * @return its verbs, or {@code null} when the provider left the critical-section pointers NULL (a QP not made by
     *     {@code ibv_create_qp_ex} with send-ops flags)
     */
    public static QpExOps of(MemorySegment qpx) {
        if (qpx.address() == 0) {
            return null;
        }
        QpExOps ops = new QpExOps(qpx.reinterpret(IbvQpEx.SIZE));
        return ops.start.address() == 0 || ops.complete.address() == 0 || ops.abort.address() == 0
                || ops.setSgeList.address() == 0 ? null : ops;
    }

    /**
     * {@return whether the QP has the builder for {@code opcode} (an {@code ibv_wr_opcode} value)}
     *
     * @param opcode IBV_WR_RDMA_WRITE (0) … IBV_WR_SEND_WITH_INV (9)
     */
    public boolean supports(int opcode) {
        MemorySegment fn = switch (opcode) {
            case 0 -> rdmaWrite;
            case 1 -> rdmaWriteImm;
            case 2 -> send;
            case 3 -> sendImm;
            case 4 -> rdmaRead;
            case 5 -> atomicCmpSwp;
            case 6 -> atomicFetchAdd;
            case 7 -> localInv;
            case 9 -> sendInv;
            default -> MemorySegment.NULL;
        };
        return fn.address() != 0;
    }

    /** {@return whether {@code ibv_wr_set_ud_addr} is there (UD QPs)} */
    public boolean supportsUdAddr() {
        return setUdAddr.address() != 0;
    }

    /** {@return whether {@code ibv_wr_set_inline_data[_list]} are there} */
    public boolean supportsInline() {
        return setInlineData.address() != 0 && setInlineDataList.address() != 0;
    }

    /**
     * {@code qpx->wr_id} and {@code qpx->wr_flags}: what the next builder uses.
     *
     * @param wrId the work request id
     * @param flags {@code ibv_send_flags} bits
     */
    public void next(long wrId, int flags) {
        IbvQpEx.wrId(qpx, wrId);
        IbvQpEx.wrFlags(qpx, flags);
    }

    /** {@code ibv_wr_start}. */
    public void start() {
        call(V_P, start);
    }

    /**
     * {@code ibv_wr_complete}.
     *
     * @return 0, or the errno value of the first failure (nothing was posted)
     */
    public int complete() {
        try {
            return (int) I_P.invokeExact(complete, qpx);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /** {@code ibv_wr_abort}. */
    public void abort() {
        call(V_P, abort);
    }

    /** {@code ibv_wr_send}. */
    public void send() {
        call(V_P, send);
    }

    /** {@code ibv_wr_send_imm}; {@code imm} in host order. */
    public void sendImm(int imm) {
        callI(sendImm, be(imm));
    }

    /** {@code ibv_wr_send_inv}. */
    public void sendInv(int invalidateRkey) {
        callI(sendInv, invalidateRkey);
    }

    /** {@code ibv_wr_local_inv}. */
    public void localInv(int invalidateRkey) {
        callI(localInv, invalidateRkey);
    }

    /** {@code ibv_wr_rdma_write}. */
    public void rdmaWrite(int rkey, long remoteAddr) {
        callIL(rdmaWrite, rkey, remoteAddr);
    }

    /** {@code ibv_wr_rdma_read}. */
    public void rdmaRead(int rkey, long remoteAddr) {
        callIL(rdmaRead, rkey, remoteAddr);
    }

    /** {@code ibv_wr_rdma_write_imm}; {@code imm} in host order. */
    public void rdmaWriteImm(int rkey, long remoteAddr, int imm) {
        callILI(rdmaWriteImm, rkey, remoteAddr, be(imm));
    }

    /** {@code ibv_wr_atomic_cmp_swp}. */
    public void atomicCmpSwp(int rkey, long remoteAddr, long compare, long swap) {
        try {
            V_PILLL.invokeExact(atomicCmpSwp, qpx, rkey, remoteAddr, compare, swap);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /** {@code ibv_wr_atomic_fetch_add}. */
    public void atomicFetchAdd(int rkey, long remoteAddr, long add) {
        try {
            V_PILL.invokeExact(atomicFetchAdd, qpx, rkey, remoteAddr, add);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /** {@code ibv_wr_set_sge}. */
    public void setSge(int lkey, long addr, int length) {
        callILI(setSge, lkey, addr, length);
    }

    /** {@code ibv_wr_set_sge_list}: {@code numSge} {@code struct ibv_sge} at address {@code sgList}. */
    public void setSgeList(long numSge, long sgList) {
        callLL(setSgeList, numSge, sgList);
    }

    /** {@code ibv_wr_set_inline_data}: {@code length} bytes at address {@code addr}, copied now. */
    public void setInlineData(long addr, long length) {
        callLL(setInlineData, addr, length);
    }

    /** {@code ibv_wr_set_inline_data_list}: {@code numBuf} {@code struct ibv_data_buf} at address {@code bufList}. */
    public void setInlineDataList(long numBuf, long bufList) {
        callLL(setInlineDataList, numBuf, bufList);
    }

    /** {@code ibv_wr_set_ud_addr}: {@code ah} is the {@code struct ibv_ah *} address. */
    public void setUdAddr(long ah, int remoteQpn, int remoteQkey) {
        try {
            V_PLII.invokeExact(setUdAddr, qpx, ah, remoteQpn, remoteQkey);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /** C's {@code __be32} of a host-order value, as it travels in a register. */
    private static int be(int hostOrder) {
        return LITTLE ? Integer.reverseBytes(hostOrder) : hostOrder;
    }

    private void call(MethodHandle h, MemorySegment fn) {
        try {
            h.invokeExact(fn, qpx);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    private void callI(MemorySegment fn, int a) {
        try {
            V_PI.invokeExact(fn, qpx, a);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    private void callIL(MemorySegment fn, int a, long b) {
        try {
            V_PIL.invokeExact(fn, qpx, a, b);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    private void callILI(MemorySegment fn, int a, long b, int c) {
        try {
            V_PILI.invokeExact(fn, qpx, a, b, c);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    private void callLL(MemorySegment fn, long a, long b) {
        try {
            V_PLL.invokeExact(fn, qpx, a, b);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }
}
