package dev.ibex.verbs.provider;

import dev.ibex.cm.spi.AhAttr;
import dev.ibex.cm.spi.Gid;
import dev.ibex.verbs.ffi.struct.IbvAhAttr;
import dev.ibex.verbs.ffi.struct.IbvGid;
import java.lang.foreign.MemorySegment;

/** {@link AhAttr} ↔ {@code struct ibv_ah_attr} (with its {@code ibv_global_route}). */
final class AhAttrCodec {
    private AhAttrCodec() {
    }

    /** Writes {@code a} over the whole struct at {@code s} (other bytes zeroed). */
    static void write(AhAttr a, MemorySegment s) {
        s.asSlice(0, IbvAhAttr.SIZE).fill((byte) 0);
        IbvGid.raw(IbvAhAttr.dgid(s), (a.dgid() == null ? Gid.ZERO : a.dgid()).raw());
        IbvAhAttr.flowLabel(s, a.flowLabel());
        IbvAhAttr.sgidIndex(s, a.sgidIndex());
        IbvAhAttr.hopLimit(s, a.hopLimit());
        IbvAhAttr.trafficClass(s, a.trafficClass());
        IbvAhAttr.dlid(s, a.dlid());
        IbvAhAttr.sl(s, a.sl());
        IbvAhAttr.srcPathBits(s, a.srcPathBits());
        IbvAhAttr.staticRate(s, a.staticRate());
        IbvAhAttr.isGlobal(s, a.isGlobal() ? 1 : 0);
        IbvAhAttr.portNum(s, a.portNum());
    }

    static AhAttr read(MemorySegment s) {
        return new AhAttr(Gid.of(IbvGid.raw(IbvAhAttr.dgid(s))), IbvAhAttr.flowLabel(s), IbvAhAttr.sgidIndex(s),
                IbvAhAttr.hopLimit(s), IbvAhAttr.trafficClass(s), IbvAhAttr.dlid(s), IbvAhAttr.sl(s),
                IbvAhAttr.srcPathBits(s), IbvAhAttr.staticRate(s), IbvAhAttr.isGlobal(s) != 0, IbvAhAttr.portNum(s));
    }
}
