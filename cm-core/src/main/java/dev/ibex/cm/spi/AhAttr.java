package dev.ibex.cm.spi;

/**
 * {@code struct ibv_ah_attr} with its {@code ibv_global_route}: an address vector (a path to a remote port).
 * On RoCE every path is global ({@code isGlobal}) and the GIDs are IP addresses.
 */
public record AhAttr(Gid dgid, int flowLabel, int sgidIndex, int hopLimit, int trafficClass, int dlid, int sl,
        int srcPathBits, int staticRate, boolean isGlobal, int portNum) {

    /** A RoCE path to {@code dgid} from local GID index {@code sgidIndex} on {@code portNum}. */
    public static AhAttr roce(Gid dgid, int sgidIndex, int portNum) {
        return new AhAttr(dgid, 0, sgidIndex, 64, 0, 0, 0, 0, 0, true, portNum);
    }
}
