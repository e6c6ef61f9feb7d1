package dev.ibex.it.vm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.verbs.ffi.CompletionQueues;
import dev.ibex.verbs.ffi.Devices;
import dev.ibex.verbs.ffi.ProtectionDomains;
import dev.ibex.verbs.ffi.SharedReceiveQueues;
import dev.ibex.verbs.ffi.struct.IbvDeviceAttr;
import dev.ibex.verbs.ffi.struct.IbvDeviceAttrEx;
import dev.ibex.verbs.ffi.struct.IbvSrqInitAttrEx;
import dev.ibex.verbs.ffi.struct.IbvTmCaps;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * The tag-matching bindings against rdma_rxe itself: {@code ibv_query_device_ex} (through the context's extended op,
 * falling back as {@code verbs.h} does) reports {@code tm_caps} of zero next to the same {@code orig_attr} as
 * {@code ibv_query_device}, and {@code ibv_create_srq_ex} with {@code IBV_SRQT_TM} is refused by rxe with EOPNOTSUPP — what
 * the rdma-core provider turns into its typed ENOTSUP before calling anything ({@code TagMatchingConformance}).
 */
@VmTest
class TagMatchingVerbsVmTest {
    private final SoftRoceVm vm = SoftRoceVm.current();

    @Test
    void rxeReportsNoTagMatchingAndRefusesATmSrq() {
        MemorySegment list = Devices.getDeviceList();
        MemorySegment context = MemorySegment.NULL;
        try (Arena arena = Arena.ofConfined()) {
            for (int i = 0; i < list.byteSize() / 8; i++) {
                if (Devices.getDeviceName(Devices.device(list, i)).equals(vm.device())) {
                    context = Devices.openDevice(Devices.device(list, i));
                }
            }
            assertThat(context.address()).as("%s is listed", vm.device()).isNotZero();
            MemorySegment ex = arena.allocate(IbvDeviceAttrEx.LAYOUT);
            ex.fill((byte) 0x5A); // the fallback must zero what it does not fill
            Devices.queryDeviceEx(context, ex);
            MemorySegment tm = IbvDeviceAttrEx.tmCaps(ex);
            assertThat(IbvTmCaps.maxNumTags(tm)).isZero();
            assertThat(IbvTmCaps.flags(tm)).isZero();
            MemorySegment plain = arena.allocate(IbvDeviceAttr.LAYOUT);
            Devices.queryDevice(context, plain);
            assertThat(IbvDeviceAttr.vendorId(IbvDeviceAttrEx.origAttr(ex))).isEqualTo(IbvDeviceAttr.vendorId(plain));
            assertThat(IbvDeviceAttr.maxQp(IbvDeviceAttrEx.origAttr(ex))).isEqualTo(IbvDeviceAttr.maxQp(plain));

            MemorySegment pd = ProtectionDomains.allocPd(context);
            MemorySegment cq = CompletionQueues.createCq(context, 16, MemorySegment.NULL, MemorySegment.NULL, 0);
            try {
                MemorySegment init = arena.allocate(IbvSrqInitAttrEx.LAYOUT);
                IbvSrqInitAttrEx.tm(init, pd, cq, 16, 1, 16, 4);
                MemorySegment opened = context;
                // the kernel's answer (rxe creates basic SRQs only); EINVAL would be libibverbs refusing the request
                assertThatThrownBy(() -> SharedReceiveQueues.createSrqEx(opened, init))
                        .isInstanceOfSatisfying(RdmaException.class, e -> {
                            System.out.println("rxe answers ibv_create_srq_ex(IBV_SRQT_TM) with " + e.getMessage());
                            assertThat(e.errno()).isIn(Errno.ENOTSUP, Errno.EINVAL);
                        });
            } finally {
                CompletionQueues.destroyCq(cq);
                ProtectionDomains.deallocPd(pd);
            }
        } finally {
            if (context.address() != 0) {
                Devices.closeDevice(context);
            }
            Devices.freeDeviceList(list);
        }
    }
}
