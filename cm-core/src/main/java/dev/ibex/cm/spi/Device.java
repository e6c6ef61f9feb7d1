package dev.ibex.cm.spi;

/**
 * What a device is: its name ({@code rxe0}, {@code mlx5_0}, {@code soft0}), node GUID (host byte order),
 * node type and transport.
 */
public record Device(String name, long nodeGuid, NodeType nodeType, Transport transport) {
    public enum NodeType { UNKNOWN, CA, SWITCH, ROUTER, RNIC, USNIC, USNIC_UDP, UNSPECIFIED }

    public enum Transport { UNKNOWN, IB, IWARP, USNIC, USNIC_UDP, UNSPECIFIED }
}
