package dev.ibex.it.conformance;

import dev.ibex.cm.spi.CmEventType;
import dev.ibex.cm.spi.CmId;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.EventChannel;
import dev.ibex.cm.spi.Fabric;
import dev.ibex.cm.spi.PortSpace;
import dev.ibex.cm.spi.ProtectionDomain;
import dev.ibex.cm.spi.QpCap;
import dev.ibex.cm.spi.QpInitAttr;
import dev.ibex.cm.spi.QpType;
import dev.ibex.cm.spi.QueuePair;
import dev.ibex.cm.spi.RecvBatch;
import dev.ibex.cm.spi.SendBatch;
import java.net.InetSocketAddress;

/**
 * What every part of the conformance suite sees: the fixture, the fabric, the current test's scope and event pump,
 * and the steps most tests share. The parts ({@link CmConformance}, {@link RcDataConformance} …) are interfaces
 * with default test methods; {@link ProviderConformanceSuite} implements them all.
 */
public interface Conformance {
    ProviderUnderTest provider();

    Fabric fabric();

    Scope scope();

    EventPump pump();

    /** A port no other test of this JVM uses. */
    int nextPort();

    default InetSocketAddress serverAddress(int port) {
        return new InetSocketAddress(provider().server(), port);
    }

    default InetSocketAddress clientSource() {
        return new InetSocketAddress(provider().client(), 0);
    }

    /** A listening id on a fresh port of the server address. */
    default CmId listen(EventChannel ch, PortSpace ps) {
        CmId id = scope().add(ch.createId(ps, "listener"));
        id.bind(serverAddress(nextPort()));
        id.listen(128);
        return id;
    }

    /** An active id that resolved its address and route to {@code destination} from the client address. */
    default CmId resolved(EventChannel ch, PortSpace ps, InetSocketAddress destination) {
        CmId id = scope().add(ch.createId(ps, "client"));
        id.resolveAddr(clientSource(), destination, timeoutMs());
        pump().expect(ch, CmEventType.ADDR_RESOLVED);
        id.resolveRoute(timeoutMs());
        pump().expect(ch, CmEventType.ROUTE_RESOLVED);
        return id;
    }

    default int timeoutMs() {
        return (int) Math.min(Integer.MAX_VALUE, pump().timeout().toMillis());
    }

    default ProtectionDomain pd(CmId id) {
        return scope().add(id.device().allocPd());
    }

    default CompletionQueue cq(CmId id, int entries) {
        return scope().add(id.device().createCompletionQueue(entries, null, 0));
    }

    /** {@code rdma_create_qp} with one CQ for both directions. */
    default QueuePair qp(CmId id, ProtectionDomain pd, CompletionQueue cq, QpCap cap, boolean signalAll) {
        QpType type = id.qpType();
        return scope().add(id.createQp(pd, new QpInitAttr(cq, cq, null, cap, type, signalAll, null)));
    }

    default SendBatch sends(int n, int sges) {
        return SendBatch.allocate(scope().arena(), n, sges);
    }

    default RecvBatch recvs(int n, int sges) {
        return RecvBatch.allocate(scope().arena(), n, sges);
    }

    /** Posts {@code n} receives of {@code length} bytes each, back to back from {@code offset} of {@code mem}. */
    default void postReceives(QueuePair qp, Registered mem, long offset, int length, int n, long firstWrId) {
        RecvBatch b = recvs(n, 1);
        for (int i = 0; i < n; i++) {
            b.wrId(i, firstWrId + i).single(i, mem.address(offset + (long) i * length), length, mem.lkey());
        }
        qp.postRecv(b, n);
    }
}
