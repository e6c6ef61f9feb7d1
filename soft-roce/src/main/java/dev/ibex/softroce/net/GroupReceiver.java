package dev.ibex.softroce.net;

import dev.ibex.softroce.wire.Ipv4;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.nio.channels.MembershipKey;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The receive engine for every multicast group of one {@link SoftPort}: a socket per group, all served by one thread
 * blocking in one {@link Selector}.
 *
 * <p>Why a socket per group and not one socket joined to every group: the kernel's UDP demultiplexing is the only
 * way Java learns a datagram's destination address (it has no {@code IP_PKTINFO}), so each group's socket is bound
 * to (group, port) and receives exactly that group — a socket bound to the wildcard would also take every group any
 * socket of the host joined ({@code IP_MULTICAST_ALL} is on by default on Linux) with no way to tell them apart. And
 * Linux allows a socket only {@code net.ipv4.igmp_max_memberships} (20) joins anyway. So groups cost one file
 * descriptor each, but no thread: joining is a few system calls, and leaving drops the membership, cancels the key
 * and closes the socket without waiting for anything.
 *
 * <p>One thread, created with the first join and stopped by {@link #close()}, reads the sockets in turn (at most
 * {@value #BATCH} datagrams from one before the next gets its turn, so a flooded group cannot starve the others)
 * and hands each datagram to the port's ordinary receive path, with {@link PacketBuffer#dstIp()} = the group.
 *
 * <p>Threading: {@link #join}, {@link #leave} and {@link #close} may be called from any thread (they serialise on
 * the receiver's lock, which the receive thread never takes); only the receive thread reads the sockets.
 */
final class GroupReceiver {
    private static final Logger LOG = LoggerFactory.getLogger(GroupReceiver.class);
    /** Datagrams read from one group's socket before the next ready socket is served. */
    static final int BATCH = 64;

    private record Group(int ip, DatagramChannel channel, MembershipKey membership) {}

    private final SoftPort port;
    private final String name;
    private final Object lock = new Object();
    private final Map<Integer, Group> groups = new ConcurrentHashMap<>();
    private Selector selector;
    private Thread thread;
    private volatile boolean closed;

    GroupReceiver(SoftPort port, String name) {
        this.port = port;
        this.name = name;
    }

    /**
     * Joins {@code group} on {@code nif} with a socket bound to (group, {@code udpPort}).
     *
     * @return false if already joined
     * @throws IOException when the OS refuses (no file descriptor left, no multicast on the interface …)
     */
    boolean join(int group, NetworkInterface nif, int udpPort, int receiveBufferBytes) throws IOException {
        synchronized (lock) {
            if (closed) {
                throw new IllegalStateException("soft port " + name + " is closed");
            }
            if (groups.containsKey(group)) {
                return false;
            }
            start();
            InetAddress address = Ipv4.toInetAddress(group);
            DatagramChannel ch = DatagramChannel.open(StandardProtocolFamily.INET);
            try {
                ch.setOption(StandardSocketOptions.SO_REUSEADDR, true);
                ch.setOption(StandardSocketOptions.SO_RCVBUF, receiveBufferBytes);
                ch.bind(new InetSocketAddress(address, udpPort));
                Group g = new Group(group, ch, ch.join(address, nif));
                ch.configureBlocking(false);
                // attached as it is registered: the socket may be ready (and served) before register returns
                ch.register(selector, SelectionKey.OP_READ, g);
                groups.put(group, g);
            } catch (IOException | RuntimeException e) {
                ch.close();
                throw e;
            }
            selector.wakeup(); // a registration takes effect at the next select
            return true;
        }
    }

    /** Leaves {@code group}; false if not joined. Returns at once: nothing waits for the receive thread. */
    boolean leave(int group) {
        synchronized (lock) {
            Group g = groups.remove(group);
            if (g == null) {
                return false;
            }
            release(g);
            selector.wakeup(); // the socket's descriptor is freed when the selector deregisters it
            return true;
        }
    }

    boolean isJoined(int group) {
        return groups.containsKey(group);
    }

    /** Groups joined now. */
    int size() {
        return groups.size();
    }

    /** The groups joined now (a snapshot). */
    List<Integer> joined() {
        return new ArrayList<>(groups.keySet());
    }

    /** Leaves every group and stops the receive thread (waiting for it unless called on it). Idempotent. */
    void close() {
        Thread t;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            groups.values().forEach(GroupReceiver::release);
            groups.clear();
            t = thread;
            if (selector != null) {
                selector.wakeup(); // the receive thread sees closed, closes the selector and ends
            }
        }
        if (t != null) {
            port.joinThread(t);
        }
    }

    private void start() throws IOException {
        if (selector == null) {
            selector = Selector.open();
            thread = Thread.ofPlatform().name("ibex-softroce-rx-" + name + "-groups").daemon(true)
                    .unstarted(this::run);
            thread.start();
        }
    }

    private static void release(Group g) {
        g.membership().drop();
        try {
            g.channel().close(); // cancels its key too
        } catch (IOException e) {
            LOG.debug("closing the socket of group {} failed: {}", Ipv4.toString(g.ip()), e.toString());
        }
    }

    private void run() {
        SoftPort.Reader reader = port.newReader();
        Selector s = selector;
        Consumer<SelectionKey> ready = key -> drain((Group) key.attachment(), reader);
        try {
            while (!closed) {
                s.select(ready);
            }
        } catch (ReceiverInterrupted e) {
            Thread.currentThread().interrupt();
        } catch (IOException | RuntimeException e) {
            if (!closed) {
                LOG.warn("port {}: the multicast receiver stopped: {}", name, e.toString());
            }
        } finally {
            reader.release();
            try {
                s.close(); // deregisters (and so frees) every socket left
            } catch (IOException e) {
                LOG.debug("port {}: closing the group selector failed: {}", name, e.toString());
            }
        }
    }

    /** Reads what {@code g}'s socket holds, up to a batch (the selector brings it back if more is waiting). */
    private void drain(Group g, SoftPort.Reader reader) {
        try {
            for (int i = 0; i < BATCH; i++) {
                if (port.reception().receiveOne(reader, g.channel(), g.ip()) != PortReception.RECEIVED) {
                    return;
                }
            }
        } catch (ClosedChannelException e) {
            // left while ready: whatever was queued for the group goes with its socket
        } catch (InterruptedException e) {
            throw new ReceiverInterrupted(e);
        } catch (RuntimeException e) {
            // one group's failure must not end the thread every group of the port is read by
            LOG.warn("port {}: receiving for group {} failed", name, Ipv4.toString(g.ip()), e);
        }
    }

    /** Carries an interrupt out of the selector's callback. */
    private static final class ReceiverInterrupted extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ReceiverInterrupted(InterruptedException cause) {
            super(cause);
        }
    }
}
