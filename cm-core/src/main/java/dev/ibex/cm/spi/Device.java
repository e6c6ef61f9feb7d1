package dev.ibex.cm.spi;

/**
 * What a device is: its name ({@code rxe0}, {@code mlx5_0}, {@code soft0}), node GUID (host byte order),
 * node type and transport.
 *
 * @param name the device's name, as {@code ibv_get_device_name} gives it
 * @param nodeGuid the node GUID, host byte order
 * @param nodeType what kind of node the device is
 * @param transport the transport the device speaks
 */
public record Device(String name, long nodeGuid, NodeType nodeType, Transport transport) {
    /** {@code enum ibv_node_type}. */
    public enum NodeType {
        /** {@code IBV_NODE_UNKNOWN}. */
        UNKNOWN,
        /** {@code IBV_NODE_CA}: a channel adapter (InfiniBand HCA, or RoCE: rxe, soft-roce). */
        CA,
        /** {@code IBV_NODE_SWITCH}. */
        SWITCH,
        /** {@code IBV_NODE_ROUTER}. */
        ROUTER,
        /** {@code IBV_NODE_RNIC}: an iWARP NIC. */
        RNIC,
        /** {@code IBV_NODE_USNIC}: Cisco usNIC. */
        USNIC,
        /** {@code IBV_NODE_USNIC_UDP}: Cisco usNIC over UDP. */
        USNIC_UDP,
        /** {@code IBV_NODE_UNSPECIFIED}. */
        UNSPECIFIED
    }

    /** {@code enum ibv_transport_type}. */
    public enum Transport {
        /** {@code IBV_TRANSPORT_UNKNOWN}. */
        UNKNOWN,
        /** {@code IBV_TRANSPORT_IB}: InfiniBand transport, also over Ethernet (RoCE). */
        IB,
        /** {@code IBV_TRANSPORT_IWARP}. */
        IWARP,
        /** {@code IBV_TRANSPORT_USNIC}. */
        USNIC,
        /** {@code IBV_TRANSPORT_USNIC_UDP}. */
        USNIC_UDP,
        /** {@code IBV_TRANSPORT_UNSPECIFIED}. */
        UNSPECIFIED
    }
}
