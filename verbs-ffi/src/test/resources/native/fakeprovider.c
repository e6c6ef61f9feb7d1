/*
 * A fake rdma-core provider for ContextOpsTest: the five data-path ops and verbs_context->query_port,
 * called through a hand-made struct ibv_context exactly as the static inline verbs call real providers.
 * Each fake records what it saw into a digest (long[16]) that the object's *_context pointer points to,
 * so the test checks the Java-written work requests as C reads them, and the C-written completions as
 * Java reads them.
 */
#include <infiniband/verbs.h>
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

enum { FAKE_BAD_OPCODE = IBV_WR_DRIVER1 };

int fake_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	long *d = cq->cq_context;
	int k = n < d[0] ? n : (int) d[0];
	for (int i = 0; i < k; i++) {
		memset(&wc[i], 0, sizeof(wc[i]));
		wc[i].wr_id = 1000 + i;
		wc[i].status = i == 1 ? IBV_WC_RETRY_EXC_ERR : IBV_WC_SUCCESS;
		wc[i].opcode = i == 0 ? IBV_WC_RECV : IBV_WC_RDMA_WRITE;
		wc[i].vendor_err = 0x55 + i;
		wc[i].byte_len = 4096 + i;
		wc[i].imm_data = htonl(0xA0B0C0D0u + i);
		wc[i].qp_num = 0x123456;
		wc[i].src_qp = 0xABCDEF;
		wc[i].wc_flags = IBV_WC_WITH_IMM | IBV_WC_GRH;
		wc[i].pkey_index = 0xFFFF;
		wc[i].slid = 0x1234;
		wc[i].sl = 7;
		wc[i].dlid_path_bits = 0x7F;
	}
	d[0] -= k;
	d[1]++;
	return k;
}

int fake_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	long *d = cq->cq_context;
	d[2] = solicited_only;
	d[3]++;
	return d[4]; /* the errno value the test wants back */
}

int fake_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr)
{
	long *d = qp->qp_context;
	for (; wr; wr = wr->next) {
		if (wr->opcode == FAKE_BAD_OPCODE) {
			*bad_wr = wr;
			return ENOMEM;
		}
		d[0]++;
		for (int i = 0; i < wr->num_sge; i++) {
			d[1] += wr->sg_list[i].length;
			d[2] ^= (long) wr->sg_list[i].addr;
			d[3] += wr->sg_list[i].lkey;
		}
		d[4] = d[4] * 31 + (long) wr->wr_id;
		switch (wr->opcode) {
		case IBV_WR_RDMA_WRITE:
			d[5] = (long) wr->wr.rdma.remote_addr;
			d[6] = wr->wr.rdma.rkey;
			break;
		case IBV_WR_SEND_WITH_IMM:
			d[7] = ntohl(wr->imm_data);
			break;
		case IBV_WR_SEND:
			d[8] = (long) wr->wr.ud.ah;
			d[9] = wr->wr.ud.remote_qpn;
			d[10] = wr->wr.ud.remote_qkey;
			break;
		case IBV_WR_ATOMIC_CMP_AND_SWP:
			d[11] = (long) wr->wr.atomic.compare_add;
			d[12] = (long) wr->wr.atomic.swap;
			d[13] = (long) wr->wr.atomic.remote_addr;
			d[14] = wr->wr.atomic.rkey;
			break;
		default:
			break;
		}
		d[15] |= wr->send_flags;
	}
	return 0;
}

static int fake_recv(long *d, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	for (; wr; wr = wr->next) {
		if (wr->num_sge > 4) {
			*bad_wr = wr;
			return EINVAL;
		}
		d[0]++;
		for (int i = 0; i < wr->num_sge; i++) {
			d[1] += wr->sg_list[i].length;
			d[3] += wr->sg_list[i].lkey;
		}
		d[4] = d[4] * 31 + (long) wr->wr_id;
	}
	return 0;
}

int fake_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	return fake_recv(qp->qp_context, wr, bad_wr);
}

int fake_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	return fake_recv(srq->srq_context, wr, bad_wr);
}

int fake_query_port(struct ibv_context *context, uint8_t port_num, struct ibv_port_attr *attr, size_t len)
{
	if (len != sizeof(*attr) || port_num != 1)
		return EINVAL;
	memset(attr, 0, len);
	attr->state = IBV_PORT_ACTIVE;
	attr->max_mtu = IBV_MTU_4096;
	attr->active_mtu = IBV_MTU_1024;
	attr->gid_tbl_len = 128;
	attr->port_cap_flags = IBV_PORT_CM_SUP | IBV_PORT_IP_BASED_GIDS;
	attr->max_msg_sz = 0x80000000u;
	attr->pkey_tbl_len = 1;
	attr->lid = 0x42;
	attr->active_speed = 2;
	attr->phys_state = 5;
	attr->link_layer = IBV_LINK_LAYER_ETHERNET;
	attr->port_cap_flags2 = 0x21;
	return 0;
}
