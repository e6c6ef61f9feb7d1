package dev.ibex.verbs.provider;

import dev.ibex.cm.spi.AddressHandle;
import dev.ibex.cm.spi.AhAttr;
import dev.ibex.verbs.ffi.AddressHandles;
import dev.ibex.verbs.ffi.struct.IbvAhAttr;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** {@code struct ibv_ah}; {@link #handle()} is the pointer UD send WRs carry. */
final class NativeAddressHandle extends NativeResource implements AddressHandle {
    private final AhAttr attr;
    private final MemorySegment ah;

    NativeAddressHandle(NativeProtectionDomain pd, AhAttr attr) {
        super(pd.fabric);
        this.attr = attr;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate(IbvAhAttr.LAYOUT);
            AhAttrCodec.write(attr, a);
            this.ah = AddressHandles.createAh(pd.segment(), a);
        }
        tracked();
    }

    @Override
    String describe() {
        return "AH to " + attr.dgid();
    }

    @Override
    public long handle() {
        return ah.address();
    }

    @Override
    public AhAttr attr() {
        return attr;
    }

    @Override
    void destroy() {
        AddressHandles.destroyAh(ah);
    }
}
