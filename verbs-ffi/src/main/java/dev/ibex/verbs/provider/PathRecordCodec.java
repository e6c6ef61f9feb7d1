package dev.ibex.verbs.provider;

import dev.ibex.cm.spi.Gid;
import dev.ibex.cm.spi.PathRecord;
import dev.ibex.verbs.ffi.struct.IbvGid;
import dev.ibex.verbs.ffi.struct.IbvSaPathRec;
import java.lang.foreign.MemorySegment;

/** {@code struct ibv_sa_path_rec} → {@link PathRecord}. */
final class PathRecordCodec {
    private PathRecordCodec() {
    }

    static PathRecord read(MemorySegment p) {
        return new PathRecord(Gid.of(IbvGid.raw(IbvSaPathRec.sgid(p))), Gid.of(IbvGid.raw(IbvSaPathRec.dgid(p))),
                IbvSaPathRec.dlid(p), IbvSaPathRec.slid(p), IbvSaPathRec.flowLabel(p) & 0xFFFFF,
                IbvSaPathRec.hopLimit(p), IbvSaPathRec.trafficClass(p), IbvSaPathRec.pkey(p), IbvSaPathRec.sl(p),
                NativeDeviceContext.mtu(IbvSaPathRec.mtu(p)), IbvSaPathRec.rate(p), IbvSaPathRec.packetLifeTime(p));
    }
}
