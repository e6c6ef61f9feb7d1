/**
 * The rdma-core provider ({@code rdma-core}): FFM bindings to librdmacm and libibverbs. Only the provider's
 * package is exported; the bindings ({@code dev.ibex.verbs.ffi} and its {@code struct}, {@code constant}
 * subpackages) stay inside. The bindings call restricted FFM methods: grant this module native access with
 * {@code --enable-native-access=dev.ibex.verbs} on the module path ({@code ALL-UNNAMED} on the class path).
 */
module dev.ibex.verbs {
    requires transitive dev.ibex.cm;
    requires org.slf4j;

    exports dev.ibex.verbs.provider;

    provides dev.ibex.cm.spi.RdmaProvider with dev.ibex.verbs.provider.RdmaCoreProvider;
}
