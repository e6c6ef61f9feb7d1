package dev.ibex.cm.spi;

/**
 * A tag-matching SRQ ({@code ibv_create_srq_ex} with {@code IBV_SRQT_TM}): an SRQ that also holds a list of tagged
 * buffers. RC QPs attach to it like to any SRQ ({@link QpInitAttr}); a SEND that starts with an {@code ibv_tmh}
 * ({@link TagMatchingHeader}) whose tag matches a listed buffer ({@code tag & mask == entry tag}, first in posting
 * order) lands, header stripped, in that buffer and completes {@link WcOpcode#TM_RECV} with the tag and the header's
 * app context ({@link CompletionBatch#tmTag}, {@link CompletionBatch#tmPriv}). Every other message lands whole in an
 * ordinary receive posted with {@link #postRecv}: an unmatched tagged one completes {@link WcOpcode#RECV} with
 * {@link WcFlags#TM_SYNC_REQ} and is counted as unexpected, an untagged one completes {@link WcOpcode#TM_NO_TAG}.
 * Every completion of the SRQ — receives of all its QPs and list operations — goes to {@link #cq()}.
 *
 * <p>Phase synchronisation (rdma-core's {@code Documentation/tag_matching.md}): after an unexpected message, tags
 * added by an operation that has not reported every unexpected message ({@link SrqOpsBatch#TM_SYNC} with the count
 * of unexpected completions software has handled) are not matched until a later operation reports the full count;
 * list-operation completions carry {@link WcFlags#TM_SYNC_REQ} while the counts differ.
 *
 * <p>Posting is confined to one thread, like {@link #postRecv}; {@link #close()} is thread-safe.
 */
public interface TagMatchingSrq extends SharedReceiveQueue {
    /** {@return the CQ every completion of this SRQ goes to (the {@code cq} of {@code ibv_srq_init_attr_ex})} */
    CompletionQueue cq();

    /** {@return the tagged buffers the list holds at most ({@code tm_cap.max_num_tags})} */
    int maxNumTags();

    /** {@return the list operations one {@link #postSrqOps} call may carry ({@code tm_cap.max_ops})} */
    int maxOps();

    /**
     * {@code ibv_post_srq_ops} of operations 0..count-1: adds tagged buffers ({@link SrqOpsBatch#TAG_ADD}, whose
     * handle is written back into the batch), removes them ({@link SrqOpsBatch#TAG_DEL}; a buffer a message consumed
     * meanwhile completes {@link WcStatus#TM_ERR}, signaled or not) and reports the unexpected count
     * ({@link SrqOpsBatch#TAG_SYNC}). {@link SrqOpsBatch#SIGNALED} operations complete on {@link #cq()} with
     * {@link WcOpcode#TM_ADD}, {@link WcOpcode#TM_DEL} or {@link WcOpcode#TM_SYNC}.
     *
     * @param batch the operations
     * @param count how many of them to post, from operation 0
     * @throws PostException EINVAL for an unknown opcode, too many scatter entries, a handle that was never given out
     *     or an unexpected count above what the SRQ counted; ENOMEM when the list is full or {@code count} exceeds
     *     {@link #maxOps()}; earlier operations were posted
     */
    void postSrqOps(SrqOpsBatch batch, int count);
}
