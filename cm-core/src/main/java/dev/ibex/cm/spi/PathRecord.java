package dev.ibex.cm.spi;

/**
 * The route of a resolved CM id ({@code struct ibv_sa_path_rec}, the fields that matter on RoCE and IB).
 *
 * @param packetLifeTime IB time code (4.096 µs · 2^n); the QP ACK timeout is derived from it
 */
public record PathRecord(Gid sgid, Gid dgid, int dlid, int slid, int flowLabel, int hopLimit, int trafficClass,
        int pkey, int sl, Mtu mtu, int rate, int packetLifeTime) {}
