/**
 * The software RoCEv2 provider ({@code soft-roce}): RDMA CM and verbs over UDP sockets, no device and no root.
 * Exported: the provider and its configuration ({@code dev.ibex.softroce}) and the simulated network
 * ({@code dev.ibex.softroce.net}: fault injection, free ports); the wire format, the IB CM and the soft device with
 * its transport ({@code dev.ibex.softroce.transport}) stay inside ({@code SoftFabric}'s methods for the CM return
 * soft verbs objects: usable only inside this module). The CM plugs into the fabric through
 * {@link java.util.ServiceLoader} ({@code CmService.Factory}), so the transport never names it.
 */
module dev.ibex.softroce {
    requires transitive dev.ibex.cm;
    requires org.slf4j;

    exports dev.ibex.softroce;
    // fault injection (SoftFabric.faults()) and free loopback ports (FreePort) are for users' tests too
    exports dev.ibex.softroce.net;

    uses dev.ibex.softroce.CmService.Factory;

    provides dev.ibex.cm.spi.RdmaProvider with dev.ibex.softroce.SoftRoceProvider;
    provides dev.ibex.softroce.CmService.Factory with dev.ibex.softroce.cm.RdmaCmFactory;
}
