package dev.ibex.softroce.cm;

import dev.ibex.softroce.mad.CmAttribute;
import dev.ibex.softroce.mad.CmMad;
import dev.ibex.softroce.mad.MadHeader;
import dev.ibex.softroce.wire.MalformedPacketException;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.function.Predicate;

/**
 * An in-memory stand-in for the soft devices' QP1s: every MAD is encoded to its 256 bytes and decoded again at
 * the receiver, so the codecs are on the path. Fault hooks drop or duplicate MADs by predicate. Delivery is
 * manual ({@link #deliverAll()}) or, with an executor, asynchronous in send order.
 */
final class MadNetwork {
    /** A MAD on the wire, as the receiver decodes it. */
    record Packet(InetAddress source, InetAddress destination, CmMad mad, byte[] bytes) {
        CmAttribute attribute() {
            return mad.message().attribute();
        }

        long tid() {
            return mad.transactionId();
        }

        @Override
        public String toString() {
            return attribute() + " " + source.getHostAddress() + "->" + destination.getHostAddress() + " tid=0x"
                    + Long.toHexString(tid());
        }
    }

    private final Executor executor;
    private final Deque<Packet> queue = new ArrayDeque<>();
    private final Map<InetAddress, Receiver> endpoints = new HashMap<>();
    private final List<Packet> log = new ArrayList<>();
    private volatile Predicate<Packet> drop = p -> false;
    private volatile Predicate<Packet> duplicate = p -> false;

    /** Manual delivery. */
    MadNetwork() {
        this(null);
    }

    /** Delivery on {@code executor} (single-threaded keeps send order), or manual when {@code null}. */
    MadNetwork(Executor executor) {
        this.executor = executor;
    }

    /** Whatever sits at an address: gets each MAD's 256 bytes. */
    @FunctionalInterface
    interface Receiver {
        void receive(InetAddress source, MemorySegment mad);
    }

    /** A port at {@code address} feeding {@code cm}. */
    final class Endpoint implements CmPort {
        private final InetAddress address;
        private final long guid;
        private final IbCm cm;

        Endpoint(InetAddress address, long guid, IbCm cm) {
            this.address = address;
            this.guid = guid;
            this.cm = cm;
        }

        @Override
        public InetAddress address() {
            return address;
        }

        @Override
        public long caGuid() {
            return guid;
        }

        @Override
        public void send(InetAddress destination, CmMad mad) {
            transmit(address, destination, mad);
        }

        @Override
        public String toString() {
            return "port " + address.getHostAddress();
        }
    }

    /** Puts {@code mad} from {@code address} to {@code destination} on the wire (encoded, logged, faults applied). */
    void transmit(InetAddress address, InetAddress destination, CmMad mad) {
        {
            byte[] bytes = new byte[MadHeader.MAD_SIZE];
            mad.encode(MemorySegment.ofArray(bytes), 0);
            CmMad onWire;
            try {
                onWire = CmMad.decode(MemorySegment.ofArray(bytes), 0); // what the receiver sees
            } catch (MalformedPacketException e) {
                throw new AssertionError("undecodable MAD " + mad, e);
            }
            Packet p = new Packet(address, destination, onWire, bytes);
            synchronized (MadNetwork.this) {
                log.add(p);
            }
            if (drop.test(p)) {
                return;
            }
            enqueue(p);
            if (duplicate.test(p)) {
                enqueue(p);
            }
        }
    }

    synchronized Endpoint attach(InetAddress address, long guid, IbCm cm) {
        Endpoint e = new Endpoint(address, guid, cm);
        endpoints.put(address, (src, mad) -> cm.receive(e, src, mad, 0));
        return e;
    }

    synchronized void attach(InetAddress address, Receiver receiver) {
        endpoints.put(address, receiver);
    }

    synchronized void detach(InetAddress address) {
        endpoints.remove(address);
    }

    void drop(Predicate<Packet> p) {
        drop = p;
    }

    void duplicate(Predicate<Packet> p) {
        duplicate = p;
    }

    private void enqueue(Packet p) {
        if (executor != null) {
            executor.execute(() -> deliver(p));
        } else {
            synchronized (this) {
                queue.add(p);
            }
        }
    }

    /** Delivers queued MADs (and those they cause) until none is left; returns how many. */
    int deliverAll() {
        int n = 0;
        while (true) {
            Packet p;
            synchronized (this) {
                p = queue.poll();
            }
            if (p == null) {
                return n;
            }
            deliver(p);
            n++;
        }
    }

    private void deliver(Packet p) {
        Receiver to;
        synchronized (this) {
            to = endpoints.get(p.destination());
        }
        if (to == null) {
            return; // nobody at that address: lost like a UDP datagram
        }
        to.receive(p.source(), MemorySegment.ofArray(p.bytes()));
    }

    /** Every MAD sent so far (before faults), in order. */
    synchronized List<Packet> log() {
        return List.copyOf(log);
    }

    synchronized List<Packet> sent(CmAttribute attribute) {
        return log.stream().filter(p -> p.attribute() == attribute).toList();
    }

    synchronized void clearLog() {
        log.clear();
    }
}
