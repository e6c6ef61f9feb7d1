package dev.ibex.cm.spi;

/**
 * The route of a resolved CM id ({@code struct ibv_sa_path_rec}, the fields that matter on RoCE and IB).
 *
 * @param sgid the source GID (on RoCE, the local IP address)
 * @param dgid the destination GID (on RoCE, the peer's IP address)
 * @param dlid the destination LID (InfiniBand; 0 on RoCE)
 * @param slid the source LID (InfiniBand; 0 on RoCE)
 * @param flowLabel the GRH flow label
 * @param hopLimit the GRH hop limit
 * @param trafficClass the GRH traffic class
 * @param pkey the partition key
 * @param sl the service level
 * @param mtu the path MTU
 * @param rate the path's static rate ({@code enum ibv_rate})
 * @param packetLifeTime IB time code (4.096 µs · 2^n); the QP ACK timeout is derived from it
 */
public record PathRecord(Gid sgid, Gid dgid, int dlid, int slid, int flowLabel, int hopLimit, int trafficClass,
        int pkey, int sl, Mtu mtu, int rate, int packetLifeTime) {}
