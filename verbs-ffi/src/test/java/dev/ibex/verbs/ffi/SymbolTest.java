package dev.ibex.verbs.ffi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Every function the bindings declare resolves in the installed libraries; optional ones are reported. */
class SymbolTest {
    private static final List<String> REQUIRED_RDMACM = List.of(
            "rdma_create_event_channel", "rdma_destroy_event_channel", "rdma_create_id", "rdma_destroy_id",
            "rdma_migrate_id", "rdma_set_option", "rdma_bind_addr", "rdma_resolve_addr", "rdma_resolve_route",
            "rdma_listen", "rdma_connect", "rdma_accept", "rdma_reject", "rdma_disconnect", "rdma_establish",
            "rdma_notify", "rdma_join_multicast", "rdma_join_multicast_ex", "rdma_leave_multicast",
            "rdma_get_cm_event", "rdma_ack_cm_event", "rdma_event_str", "rdma_getaddrinfo", "rdma_freeaddrinfo",
            "rdma_get_devices", "rdma_free_devices", "rdma_get_src_port", "rdma_get_dst_port", "rdma_create_qp",
            "rdma_destroy_qp", "rdma_init_qp_attr");
    private static final List<String> REQUIRED_IBVERBS = List.of(
            "ibv_get_device_list", "ibv_free_device_list", "ibv_get_device_name", "ibv_get_device_guid",
            "ibv_open_device", "ibv_close_device", "ibv_query_device", "ibv_query_port", "ibv_query_gid",
            "ibv_query_pkey", "ibv_alloc_pd", "ibv_dealloc_pd", "ibv_reg_mr", "ibv_reg_mr_iova2", "ibv_dereg_mr",
            "ibv_create_comp_channel", "ibv_destroy_comp_channel", "ibv_create_cq", "ibv_destroy_cq",
            "ibv_get_cq_event", "ibv_ack_cq_events", "ibv_create_qp", "ibv_modify_qp", "ibv_query_qp",
            "ibv_destroy_qp", "ibv_create_srq", "ibv_modify_srq", "ibv_query_srq", "ibv_destroy_srq",
            "ibv_create_ah", "ibv_destroy_ah", "ibv_init_ah_from_wc", "ibv_create_ah_from_wc", "ibv_attach_mcast",
            "ibv_detach_mcast", "ibv_get_async_event", "ibv_ack_async_event", "ibv_event_type_str",
            "ibv_wc_status_str", "ibv_fork_init", "ibv_port_state_str", "ibv_node_type_str");
    private static final List<String> REQUIRED_LIBC = List.of(
            "epoll_create1", "epoll_ctl", "epoll_wait", "eventfd", "read", "write", "close", "fcntl", "strerror");
    /** static inline in verbs.h: reached through ContextOps, never through dlsym. */
    private static final List<String> INLINE_ONLY = List.of(
            "ibv_post_send", "ibv_post_recv", "ibv_post_srq_recv", "ibv_poll_cq", "ibv_req_notify_cq");

    @Test
    void theBindingsDeclareEveryFunctionTheProviderNeeds() {
        assertThat(RdmaCm.functions()).extracting(Downcalls.Function::symbol).containsAll(REQUIRED_RDMACM);
        assertThat(IbVerbs.functions()).extracting(Downcalls.Function::symbol).containsAll(REQUIRED_IBVERBS);
        assertThat(LibC.functions()).extracting(Downcalls.Function::symbol).containsAll(REQUIRED_LIBC);
    }

    @Test
    void everyDeclaredFunctionResolvesInTheInstalledLibraries() {
        assumeTrue(Libraries.rdmacm().isAvailable(), () -> Libraries.rdmacm().unavailableReason().orElse(""));
        assumeTrue(Libraries.ibverbs().isAvailable(), () -> Libraries.ibverbs().unavailableReason().orElse(""));
        List<Downcalls.Function> all = Stream.of(RdmaCm.functions(), IbVerbs.functions(), LibC.functions())
                .flatMap(List::stream).toList();
        List<String> missing = new ArrayList<>();
        List<String> optional = new ArrayList<>();
        for (Downcalls.Function f : all) {
            if (f.optional()) {
                optional.add(f.symbol() + (f.present() ? " (present)" : " (absent)"));
            } else if (!f.present()) {
                missing.add(f.library() + ": " + f.symbol());
            }
        }
        System.out.println("symbols: " + all.size() + " bound (" + RdmaCm.functions().size() + " librdmacm, "
                + IbVerbs.functions().size() + " libibverbs, " + LibC.functions().size() + " libc); optional: " + optional);
        assertThat(missing).as("declared functions missing from the installed libraries").isEmpty();
        assertThat(all).extracting(Downcalls.Function::symbol).doesNotHaveDuplicates();
    }

    @Test
    void theDataPathVerbsAreNotExportedWhichIsWhyContextOpsExists() {
        assumeTrue(Libraries.ibverbs().isAvailable(), () -> Libraries.ibverbs().unavailableReason().orElse(""));
        for (String inline : INLINE_ONLY) {
            assertThat(Libraries.ibverbs().hasSymbol(inline)).as(inline).isFalse();
        }
    }
}
