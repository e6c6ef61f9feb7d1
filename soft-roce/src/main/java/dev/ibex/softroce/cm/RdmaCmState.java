package dev.ibex.softroce.cm;

/** The RDMA CM id states ({@code enum rdma_cm_state} in {@code cma_priv.h}). */
public enum RdmaCmState {
    IDLE,
    ADDR_QUERY,
    ADDR_RESOLVED,
    ROUTE_QUERY,
    ROUTE_RESOLVED,
    CONNECT,
    DISCONNECT,
    ADDR_BOUND,
    LISTEN,
    DEVICE_REMOVAL,
    DESTROYING
}
