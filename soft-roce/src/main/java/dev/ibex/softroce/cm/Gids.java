package dev.ibex.softroce.cm;

import java.lang.foreign.MemorySegment;

/** Conversions between the SPI's GID and the wire codec's. */
final class Gids {
    private Gids() {
    }

    static dev.ibex.softroce.wire.Gid toWire(dev.ibex.cm.spi.Gid gid) {
        return dev.ibex.softroce.wire.Gid.read(MemorySegment.ofArray(gid.raw()), 0);
    }

    static dev.ibex.cm.spi.Gid toSpi(dev.ibex.softroce.wire.Gid gid) {
        byte[] b = new byte[16];
        gid.write(MemorySegment.ofArray(b), 0);
        return dev.ibex.cm.spi.Gid.of(b);
    }
}
