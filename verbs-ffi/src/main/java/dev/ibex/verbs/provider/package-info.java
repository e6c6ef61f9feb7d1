/**
 * The rdma-core provider: {@link dev.ibex.verbs.provider.RdmaCoreProvider} implements the Ibex SPI
 * ({@code dev.ibex.cm.spi}) over the FFM bindings of {@code dev.ibex.verbs.ffi}.
 *
 * <p><b>Object model.</b> Every SPI object wraps one native object ({@code rdma_cm_id}, {@code ibv_qp} …) and is
 * registered with the fabric's {@link dev.ibex.cm.spi.ResourceTracker}. The {@code void *} context fields the C
 * API offers ({@code rdma_cm_id.context}, {@code cq_context}, {@code qp_context}, {@code srq_context}, the
 * multicast join context) hold a generation-checked handle into a table rather than a pointer, so CM events,
 * completion events and async events find their Java objects, and a stale event for a destroyed object finds
 * nothing instead of whatever now lives at the same address.
 *
 * <p><b>Event discipline.</b> All fds (CM channel, completion channel, device async fd) are non-blocking and are
 * read until EAGAIN. CM and async events are copied and acknowledged before they are returned; completion events
 * are counted per CQ, acknowledged in batches by the reader and settled before {@code ibv_destroy_cq}. Nothing
 * the provider does can leave a destroy waiting for an acknowledgement.
 *
 * <p><b>Teardown order.</b> Closing an id leaves its multicast groups, destroys its QP, then the id; closing a
 * channel closes its ids first; closing the fabric closes what is left in
 * {@link dev.ibex.cm.spi.ResourceKind} order (memberships, AHs, QPs, SRQs, CQs, completion channels, MRs, PDs,
 * ids, channels, pollers).
 *
 * <p><b>Data path.</b> {@code ibv_post_send}/{@code ibv_post_recv}/{@code ibv_post_srq_recv}/{@code ibv_poll_cq}
 * go through the device's function pointers ({@link dev.ibex.verbs.ffi.ContextOps}) with the SPI batches, which
 * are already in {@code ibv_*} layout: no copy, no allocation.
 *
 * <p><b>APM.</b> The device's {@code IBV_DEVICE_AUTO_PATH_MIG} flag is reported as is. Linux rxe claims it, but the
 * kernel refuses alternate paths on RoCE devices ({@code ibv_modify_qp} with {@code IBV_QP_ALT_PATH} fails with
 * EINVAL: the core handles APM for InfiniBand only), so APM works on InfiniBand HCAs alone. The provider reports,
 * it does not emulate.
 *
 * <p><b>fork().</b> See {@link dev.ibex.verbs.provider.RdmaCoreProvider#FORK_INIT} and the verbs-ffi README.
 */
package dev.ibex.verbs.provider;
