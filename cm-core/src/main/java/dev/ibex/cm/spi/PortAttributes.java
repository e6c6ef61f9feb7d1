package dev.ibex.cm.spi;

/**
 * The subset of {@code struct ibv_port_attr} the framework uses.
 *
 * @param state {@code enum ibv_port_state}: 1 DOWN, 2 INIT, 3 ARMED, 4 ACTIVE
 * @param linkLayer 1 InfiniBand, 2 Ethernet (RoCE)
 */
public record PortAttributes(int state, Mtu maxMtu, Mtu activeMtu, int gidTableLength, int portCapFlags,
        long maxMessageSize, int pkeyTableLength, int lid, int linkLayer) {
    public static final int STATE_ACTIVE = 4;
    public static final int LINK_LAYER_INFINIBAND = 1;
    public static final int LINK_LAYER_ETHERNET = 2;

    public boolean isActive() {
        return state == STATE_ACTIVE;
    }
}
