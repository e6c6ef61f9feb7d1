package dev.ibex.softroce.cm;

import dev.ibex.cm.spi.DeviceContext;
import dev.ibex.cm.spi.Mtu;

/** A soft device as the RDMA CM sees it: a {@link CmPort} (one IP address, its QP1) with its verbs context. */
public interface CmDevice extends CmPort {

    /** The opened device ({@code id->verbs}). */
    DeviceContext context();

    /** The path MTU of routes through this device ({@code iboe_get_mtu} of the interface MTU). */
    Mtu activeMtu();
}
