package dev.ibex.cm.spi;

/**
 * The subset of {@code struct ibv_port_attr} the framework uses.
 *
 * @param state {@code enum ibv_port_state}: 1 DOWN, 2 INIT, 3 ARMED, 4 ACTIVE
 * @param maxMtu the largest MTU the port supports
 * @param activeMtu the MTU in use (on RoCE: derived from the netdev's MTU)
 * @param gidTableLength entries in the port's GID table
 * @param portCapFlags {@code port_cap_flags}
 * @param maxMessageSize the largest message in bytes
 * @param pkeyTableLength entries in the port's P_Key table
 * @param lid the port's LID (InfiniBand; 0 on RoCE)
 * @param linkLayer 1 InfiniBand, 2 Ethernet (RoCE)
 */
public record PortAttributes(int state, Mtu maxMtu, Mtu activeMtu, int gidTableLength, int portCapFlags,
        long maxMessageSize, int pkeyTableLength, int lid, int linkLayer) {
    /** {@code IBV_PORT_ACTIVE}: the port can send and receive. */
    public static final int STATE_ACTIVE = 4;
    /** {@code IBV_LINK_LAYER_INFINIBAND}. */
    public static final int LINK_LAYER_INFINIBAND = 1;
    /** {@code IBV_LINK_LAYER_ETHERNET}: RoCE or iWARP. */
    public static final int LINK_LAYER_ETHERNET = 2;

    /** {@return whether the port is {@link #STATE_ACTIVE}} */
    public boolean isActive() {
        return state == STATE_ACTIVE;
    }
}
