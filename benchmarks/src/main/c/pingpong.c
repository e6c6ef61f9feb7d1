/*
 * The latency floor without Ibex: the fewest calls an RC ping-pong needs, busy-polling one CQ, as
 * dev.ibex.bench.vm.MinimalPingPong makes them through FFM. Connection through librdmacm; then the client posts a
 * 64 B SEND, spins on ibv_poll_cq until the echo's receive completes, reposts the receive and repeats; the server
 * echoes. Prints one-way latency (round trip / 2, as perftest reports it) typical and p99, and the cost of one
 * empty ibv_poll_cq (the spin itself). With "events" it waits for CQ events instead of spinning once the CQ is
 * empty (ibv_get_cq_event, ack, re-arm, poll again), as ib_send_lat -e and Ibex's event loop do.
 *
 *   pingpong server <bind-ip> <port> <iterations> <size> [events]
 *   pingpong client <server-ip> <port> <iterations> <size> [events]
 *
 * Built by the benchmark with: gcc -O2 -o pingpong pingpong.c -lrdmacm -libverbs
 */
#include <rdma/rdma_cma.h>
#include <infiniband/verbs.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DIE(...) do { fprintf(stderr, "pingpong: " __VA_ARGS__); fputc('\n', stderr); exit(1); } while (0)
#define SPINS 1000000

static struct rdma_event_channel *ch;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static int use_events;                  /* 0: busy-poll */
static struct ibv_comp_channel *events;
static struct ibv_mr *mr;
static char *buf;
static int size;

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static struct rdma_cm_event *expect(enum rdma_cm_event_type type) {
    struct rdma_cm_event *e;
    if (rdma_get_cm_event(ch, &e)) DIE("rdma_get_cm_event: %m");
    if (e->event != type) DIE("expected %s, got %s (status %d)", rdma_event_str(type), rdma_event_str(e->event), e->status);
    return e;
}

static void setup(struct rdma_cm_id *id) {
    struct ibv_qp_init_attr attr = {0};
    pd = ibv_alloc_pd(id->verbs);
    if (use_events && !(events = ibv_create_comp_channel(id->verbs))) DIE("ibv_create_comp_channel: %m");
    cq = ibv_create_cq(id->verbs, 64, NULL, events, 0);
    if (cq && events && ibv_req_notify_cq(cq, 0)) DIE("ibv_req_notify_cq: %m");
    buf = aligned_alloc(4096, 2 * 4096);
    mr = ibv_reg_mr(pd, buf, 2 * 4096, IBV_ACCESS_LOCAL_WRITE);
    if (!pd || !cq || !buf || !mr) DIE("resources: %m");
    attr.send_cq = cq;
    attr.recv_cq = cq;
    attr.qp_type = IBV_QPT_RC;
    attr.cap.max_send_wr = 16;
    attr.cap.max_recv_wr = 16;
    attr.cap.max_send_sge = 1;
    attr.cap.max_recv_sge = 1;
    attr.sq_sig_all = 1;
    if (rdma_create_qp(id, pd, &attr)) DIE("rdma_create_qp: %m");
}

static void post_recv(struct rdma_cm_id *id) {
    struct ibv_sge sge = { (uintptr_t) buf, size, mr->lkey };
    struct ibv_recv_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 }, *bad;
    if (ibv_post_recv(id->qp, &wr, &bad)) DIE("ibv_post_recv: %m");
}

static void post_send(struct rdma_cm_id *id) {
    struct ibv_sge sge = { (uintptr_t) buf + 4096, size, mr->lkey };
    struct ibv_send_wr wr = { .wr_id = 2, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND }, *bad;
    if (ibv_post_send(id->qp, &wr, &bad)) DIE("ibv_post_send: %m");
}

/* In events mode, the CQ being empty and armed: blocks for its event, acknowledges it and re-arms (the caller polls
 * again, so a completion that came before the re-arm is not missed). */
static void wait_event(void) {
    struct ibv_cq *ev_cq;
    void *ctx;
    if (!events) return;
    if (ibv_get_cq_event(events, &ev_cq, &ctx)) DIE("ibv_get_cq_event: %m");
    ibv_ack_cq_events(ev_cq, 1);
    if (ibv_req_notify_cq(ev_cq, 0)) DIE("ibv_req_notify_cq: %m");
}

/* Spins until the receive and the send posted in this round both completed. */
static void await_both(void) {
    struct ibv_wc wc[4];
    int recv = 0, send = 0;
    while (!recv || !send) {
        int n = ibv_poll_cq(cq, 4, wc);
        if (n < 0) DIE("ibv_poll_cq");
        if (n == 0) wait_event();
        for (int i = 0; i < n; i++) {
            if (wc[i].status != IBV_WC_SUCCESS) DIE("completion %s", ibv_wc_status_str(wc[i].status));
            if (wc[i].wr_id == 1) recv = 1; else send = 1;
        }
    }
}

/* Polls once, adding what completed to the receive and send counts. */
static void count(int *recvs, int *sends) {
    struct ibv_wc wc[4];
    int n = ibv_poll_cq(cq, 4, wc);
    if (n < 0) DIE("ibv_poll_cq");
    if (n == 0) wait_event();
    for (int i = 0; i < n; i++) {
        if (wc[i].status != IBV_WC_SUCCESS) DIE("completion %s", ibv_wc_status_str(wc[i].status));
        if (wc[i].wr_id == 1) ++*recvs; else ++*sends;
    }
}

static int cmp(const void *a, const void *b) {
    long long x = *(const long long *) a, y = *(const long long *) b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    struct rdma_cm_id *id, *conn;
    struct rdma_conn_param param = { .retry_count = 7, .rnr_retry_count = 7 };
    struct sockaddr_in sa = { .sin_family = AF_INET };
    struct rdma_cm_event *e;
    int iters;
    if (argc != 6 && !(argc == 7 && !strcmp(argv[6], "events")))
        DIE("usage: pingpong server|client <ip> <port> <iterations> <size> [events]");
    use_events = argc == 7;
    sa.sin_port = htons(atoi(argv[3]));
    iters = atoi(argv[4]);
    size = atoi(argv[5]);
    if (inet_pton(AF_INET, argv[2], &sa.sin_addr) != 1 || iters < 1 || size < 1 || size > 4096) DIE("bad arguments");
    ch = rdma_create_event_channel();
    if (!ch || rdma_create_id(ch, &id, NULL, RDMA_PS_TCP)) DIE("rdma_create_id: %m");
    if (!strcmp(argv[1], "server")) {
        if (rdma_bind_addr(id, (struct sockaddr *) &sa) || rdma_listen(id, 1)) DIE("listen: %m");
        printf("pingpong: listening\n");
        fflush(stdout);
        e = expect(RDMA_CM_EVENT_CONNECT_REQUEST);
        conn = e->id;
        rdma_ack_cm_event(e);
        setup(conn);
        post_recv(conn);
        if (rdma_accept(conn, &param)) DIE("rdma_accept: %m");
        rdma_ack_cm_event(expect(RDMA_CM_EVENT_ESTABLISHED));
        /* a send's completion waits for the client's ACK, which may come after its next SEND: count both */
        int recvs = 0, sends = 0;
        for (int i = 0; i < iters; i++) {
            while (recvs <= i) {
                count(&recvs, &sends);
            }
            post_recv(conn);
            post_send(conn);
        }
        while (sends < iters) {
            count(&recvs, &sends);
        }
        rdma_ack_cm_event(expect(RDMA_CM_EVENT_DISCONNECTED));
        rdma_destroy_qp(conn);
        rdma_destroy_id(conn);
    } else {
        long long *rtt = malloc(sizeof(long long) * iters), t0;
        struct ibv_wc wc;
        if (rdma_resolve_addr(id, NULL, (struct sockaddr *) &sa, 2000)) DIE("rdma_resolve_addr: %m");
        rdma_ack_cm_event(expect(RDMA_CM_EVENT_ADDR_RESOLVED));
        if (rdma_resolve_route(id, 2000)) DIE("rdma_resolve_route: %m");
        rdma_ack_cm_event(expect(RDMA_CM_EVENT_ROUTE_RESOLVED));
        setup(id);
        post_recv(id);
        if (rdma_connect(id, &param)) DIE("rdma_connect: %m");
        rdma_ack_cm_event(expect(RDMA_CM_EVENT_ESTABLISHED));
        for (int i = 0; i < iters; i++) {
            t0 = now_ns();
            post_send(id);
            await_both();
            post_recv(id);
            rtt[i] = now_ns() - t0;
        }
        t0 = now_ns();
        for (int i = 0; i < SPINS; i++) {
            if (ibv_poll_cq(cq, 1, &wc) != 0) DIE("spin: the CQ was not empty");
        }
        double spin = (double) (now_ns() - t0) / SPINS;
        qsort(rtt, iters, sizeof(long long), cmp);
        printf("pingpong: iterations %d, size %d, one-way typical %.2f us, p99 %.2f us, empty poll %.1f ns\n", iters, size,
               rtt[iters / 2] / 2000.0, rtt[(int) (iters * 0.99)] / 2000.0, spin);
        rdma_disconnect(id);
        rdma_ack_cm_event(expect(RDMA_CM_EVENT_DISCONNECTED));
        rdma_destroy_qp(id);
        free(rtt);
    }
    rdma_destroy_id(id);
    rdma_destroy_event_channel(ch);
    return 0;
}
