package dev.ibex.cm.spi;

/**
 * {@code struct ibv_ah_attr} with its {@code ibv_global_route}: an address vector (a path to a remote port).
 * On RoCE every path is global ({@code isGlobal}) and the GIDs are IP addresses.
 *
 * @param dgid the destination GID (global paths)
 * @param flowLabel the GRH flow label (20 bits)
 * @param sgidIndex the index of the source GID in the local port's GID table
 * @param hopLimit the GRH hop limit (RoCEv2: the IP TTL)
 * @param trafficClass the GRH traffic class (RoCEv2: the IP DSCP/ECN byte)
 * @param dlid the destination LID (InfiniBand; 0 on RoCE)
 * @param sl the service level (InfiniBand)
 * @param srcPathBits the source path bits (InfiniBand LMC)
 * @param staticRate the static rate limit ({@code enum ibv_rate}), 0 for none
 * @param isGlobal whether the path carries a GRH (always on RoCE)
 * @param portNum the local port number, from 1
 */
public record AhAttr(Gid dgid, int flowLabel, int sgidIndex, int hopLimit, int trafficClass, int dlid, int sl,
        int srcPathBits, int staticRate, boolean isGlobal, int portNum) {

    /**
     * A RoCE path to {@code dgid} from local GID index {@code sgidIndex} on {@code portNum}: global, hop limit 64.
     *
     * @param dgid the destination GID
     * @param sgidIndex the index of the source GID in the port's GID table
     * @param portNum the local port number, from 1
     * @return the address vector
     */
    public static AhAttr roce(Gid dgid, int sgidIndex, int portNum) {
        return new AhAttr(dgid, 0, sgidIndex, 64, 0, 0, 0, 0, 0, true, portNum);
    }
}
