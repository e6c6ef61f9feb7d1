package dev.ibex.it.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.spi.CmEvent;
import dev.ibex.cm.spi.CmEventType;
import dev.ibex.cm.spi.CmId;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.ConnParam;
import dev.ibex.cm.spi.EventChannel;
import dev.ibex.cm.spi.PortSpace;
import dev.ibex.cm.spi.ProtectionDomain;
import dev.ibex.cm.spi.QpCap;
import dev.ibex.cm.spi.QpInitAttr;
import dev.ibex.cm.spi.QpState;
import dev.ibex.cm.spi.QpType;
import dev.ibex.cm.spi.QueuePair;
import dev.ibex.cm.spi.SharedReceiveQueue;

/**
 * An established RC connection through the CM: client id/PD/CQ/QP/buffer on the client address, the accepted id and
 * its PD/CQ/QP/buffer on the server address. Everything is in the test's scope. The server side can share a
 * listener, PD, CQ and SRQ with other pairs ({@link Options}).
 */
public final class RcPair {
    public static final int BUFFER = 64 * 1024;

    public EventChannel clientChannel;
    public EventChannel serverChannel;
    public CmId listener;
    public CmId client;
    public CmId server;
    public ProtectionDomain clientPd;
    public ProtectionDomain serverPd;
    public CompletionQueue clientCq;
    public CompletionQueue serverCq;
    public QueuePair clientQp;
    public QueuePair serverQp;
    public Registered clientMem;
    public Registered serverMem;
    public CmEvent request;
    public CmEvent established;

    /** How to build a pair; the defaults make an ordinary connection. */
    public static final class Options {
        QpCap cap = new QpCap(32, 32, 4, 4, 64);
        boolean signalAll = true;
        ConnParam connect = ConnParam.DEFAULT.withRdmaDepth(4, 4);
        ConnParam accept = ConnParam.DEFAULT.withRdmaDepth(4, 4);
        int serverReceives = 8;
        int receiveSize = 4096;
        int clientCqEntries = 256;
        EventChannel serverChannel;
        EventChannel clientChannel;
        CmId listener;
        ProtectionDomain serverPd;
        CompletionQueue serverCq;
        Registered serverMem;
        SharedReceiveQueue srq;

        public Options cap(QpCap v) { cap = v; return this; }
        public Options signalAll(boolean v) { signalAll = v; return this; }
        public Options connect(ConnParam v) { connect = v; return this; }
        public Options accept(ConnParam v) { accept = v; return this; }
        public Options serverReceives(int n, int size) { serverReceives = n; receiveSize = size; return this; }
        public Options channels(EventChannel server, EventChannel client) { serverChannel = server; clientChannel = client; return this; }
        public Options listener(CmId v) { listener = v; return this; }
        public Options serverSide(ProtectionDomain pd, CompletionQueue cq, Registered mem) { serverPd = pd; serverCq = cq; serverMem = mem; return this; }
        public Options srq(SharedReceiveQueue v) { srq = v; serverReceives = 0; return this; }
        public Options clientCqEntries(int n) { clientCqEntries = n; return this; }
    }

    public static RcPair connect(Conformance c) {
        return connect(c, new Options());
    }

    public static RcPair connect(Conformance c, Options o) {
        RcPair p = new RcPair();
        Scope scope = c.scope();
        EventPump pump = c.pump();
        p.serverChannel = o.serverChannel != null ? o.serverChannel : pump.channel();
        p.clientChannel = o.clientChannel != null ? o.clientChannel : pump.channel();
        p.listener = o.listener != null ? o.listener : c.listen(p.serverChannel, PortSpace.TCP);
        p.client = c.resolved(p.clientChannel, PortSpace.TCP, p.listener.localAddress());
        p.clientPd = c.pd(p.client);
        p.clientCq = c.cq(p.client, o.clientCqEntries);
        p.clientQp = c.qp(p.client, p.clientPd, p.clientCq, o.cap, o.signalAll);
        p.clientMem = Registered.of(scope, p.clientPd, BUFFER);
        p.client.connect(o.connect);

        p.request = pump.expect(p.serverChannel, CmEventType.CONNECT_REQUEST);
        p.server = p.request.id();
        assertThat(p.request.listenId()).isSameAs(p.listener);
        p.serverPd = o.serverPd != null ? o.serverPd : c.pd(p.server);
        p.serverCq = o.serverCq != null ? o.serverCq : c.cq(p.server, 256);
        p.serverQp = scope.add(p.server.createQp(p.serverPd,
                new QpInitAttr(p.serverCq, p.serverCq, o.srq, o.cap, QpType.RC, o.signalAll, null)));
        p.serverMem = o.serverMem != null ? o.serverMem : Registered.of(scope, p.serverPd, BUFFER);
        if (o.serverReceives > 0) {
            c.postReceives(p.serverQp, p.serverMem, 0, o.receiveSize, o.serverReceives, 1000);
        }
        p.server.accept(o.accept);
        p.established = pump.expect(p.clientChannel, CmEventType.ESTABLISHED);
        pump.expect(p.serverChannel, CmEventType.ESTABLISHED);
        assertThat(p.clientQp.state()).isEqualTo(QpState.RTS);
        return p;
    }
}
