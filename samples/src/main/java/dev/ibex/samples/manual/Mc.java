package dev.ibex.samples.manual;

import dev.ibex.cm.spi.Access;
import dev.ibex.cm.spi.AddressHandle;
import dev.ibex.cm.spi.CmEvent;
import dev.ibex.cm.spi.CmEventType;
import dev.ibex.cm.spi.CmId;
import dev.ibex.cm.spi.CompletionBatch;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.Fabric;
import dev.ibex.cm.spi.MemoryRegion;
import dev.ibex.cm.spi.PortAttributes;
import dev.ibex.cm.spi.PortSpace;
import dev.ibex.cm.spi.ProtectionDomain;
import dev.ibex.cm.spi.Providers;
import dev.ibex.cm.spi.QpCap;
import dev.ibex.cm.spi.QpInitAttr;
import dev.ibex.cm.spi.QpType;
import dev.ibex.cm.spi.QueuePair;
import dev.ibex.cm.spi.RecvBatch;
import dev.ibex.cm.spi.SendBatch;
import dev.ibex.cm.spi.SendFlags;
import dev.ibex.cm.spi.UdParam;
import dev.ibex.cm.spi.WrOpcode;
import dev.ibex.samples.cli.FabricOptions;
import dev.ibex.samples.cli.SampleCommand;
import dev.ibex.samples.cli.SampleRun;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * A port of the multicast example of the RDMA Aware Networks Programming User Manual (§9.2, {@code mc.c}) on the
 * SPI: both sides make a UD QP on an id resolved to the group {@code -m} and join it; the sender creates an address
 * handle from the join's UD parameters and sends {@code -c} messages of {@code -l} bytes with immediate data = its
 * QP number, the receiver (its receives posted before the join) waits for each. Same options and output lines as
 * the C program. Two differences: the CQ has room for {@code -c} completions, where mc.c's 2 overflow when the
 * sender is faster than the receiver polls; and where mc.c prints the CM events that arrive during the transfer
 * from a thread of its own, the port prints them between messages (the id is confined to one thread).
 *
 * <p>Threading: the command runs on one thread.
 */
@Command(name = "mc", sortOptions = false, separator = " ",
        description = "UD multicast with the RDMA CM (manual §9.2): join a group, send to it or receive from it.")
public final class Mc extends SampleCommand {
    private static final int GRH = 40;

    @Option(names = "-s", description = "sender mode") boolean sender;
    @Option(names = "-b", paramLabel = "bind_address") String bindAddr;
    @Option(names = "-m", paramLabel = "mc_address") String mcastAddr;
    @Option(names = "-p", paramLabel = "port_number", defaultValue = "51216") String serverPort;
    @Option(names = "-c", paramLabel = "msg_count", defaultValue = "4") int msgCount;
    @Option(names = "-l", paramLabel = "msg_length", defaultValue = "64") int msgLength;
    @Mixin FabricOptions fabric = new FabricOptions();

    public Mc(PrintStream out, PrintStream err) {
        super(out, err);
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new Mc(System.out, System.err)).execute(args));
    }

    @Override
    public Integer call() {
        if (mcastAddr == null) {
            out.println("multicast address must be specified with -m");
            return 1;
        }
        if (msgCount < 0 || msgLength <= 0) {
            out.println("mc: msg_count must not be negative, msg_length must be positive");
            return 1;
        }
        InetSocketAddress group = new InetSocketAddress(mcastAddr, 0);
        InetSocketAddress bind = bindAddr == null ? null : new InetSocketAddress(bindAddr, 0);
        if (group.isUnresolved() || (bind != null && bind.isUnresolved())) {
            err.println("rdma_getaddrinfo (mcast) returned -1 errno 2");
            return 1;
        }
        Deadline deadline = Deadline.after(fabric.timeout());
        try (Fabric f = Providers.select(fabric.provider()).open(fabric.providerConfig());
                SyncCm cm = new SyncCm(f, deadline);
                Arena arena = Arena.ofShared()) {
            return run(cm, arena, group, bind, deadline);
        } catch (Deadline.Expired e) {
            err.println("timed out after " + fabric.timeout().toSeconds() + " s");
            return SampleRun.TIMED_OUT;
        } finally {
            out.flush();
        }
    }

    /** {@code main} from {@code rdma_create_id} on; the resources are destroyed in {@code destroy_resources}' order. */
    private int run(SyncCm cm, Arena arena, InetSocketAddress group, InetSocketAddress bind, Deadline deadline) {
        CmId id = cm.createId(PortSpace.UDP);
        ProtectionDomain pd = null;
        CompletionQueue cq = null;
        MemoryRegion mr = null;
        AddressHandle ah = null;
        boolean joined = false;
        try {
            // resolve_addr
            if (bind != null) {
                id.bind(bind);
                pd = id.device().allocPd(); // "A PD is created when we bind"
            }
            id.resolveAddr(bind, group, 2000);
            if (getCmEvent(cm, id, CmEventType.ADDR_RESOLVED) == null) {
                return out(id, group, false);
            }
            // Verify that the buffer length is not larger than the MTU
            PortAttributes port = id.device().queryPort(id.portNum());
            int mtu = 1 << (port.activeMtu().code() + 7);
            if (msgLength > mtu) {
                out.printf("buffer length %d is larger then active mtu %d%n", msgLength, mtu);
                return out(id, group, false);
            }
            // create_resources
            if (pd == null) {
                pd = id.device().allocPd();
            }
            // mc.c asks for 2 entries and posts msg_count receives: a sender faster than the receiver's polling
            // overruns it (CQ_ERR, completions lost, the receiver waits forever); room for every message instead
            cq = id.device().createCompletionQueue(Math.max(2, msgCount), null, 0);
            QueuePair qp = id.createQp(pd, new QpInitAttr(cq, cq, null,
                    new QpCap(Math.max(1, msgCount), Math.max(1, msgCount), 1, 1, 0), QpType.UD, false, null));
            // The receiver must allow enough space in the receive buffer for the GRH
            int bufSize = msgLength + (sender ? 0 : GRH);
            MemorySegment buf = arena.allocate(bufSize, 64);
            mr = pd.registerMemory(buf, Set.of(Access.LOCAL_WRITE));
            if (!sender) {
                RecvBatch rr = RecvBatch.allocate(arena, 1, 1);
                for (int i = 0; i < msgCount; i++) {
                    rr.clear(0).wrId(0, 0).single(0, buf.address(), msgLength + GRH, mr.lkey());
                    qp.postRecv(rr, 1);
                }
            }
            // Join the multicast group
            id.joinMulticast(group, false, null);
            joined = true;
            CmEvent event = getCmEvent(cm, id, CmEventType.MULTICAST_JOIN);
            if (event == null) {
                return out(id, group, joined);
            }
            UdParam ud = event.ud();
            out.printf("joined dgid: %s, mlid 0x%x, sl %d%n", ud.ahAttr().dgid(), ud.ahAttr().dlid(),
                    ud.ahAttr().sl());
            int remoteQpn = ud.qpNum();
            int remoteQkey = ud.qkey();
            if (sender) {
                ah = pd.createAddressHandle(ud.ahAttr());
            }
            if (!sender) {
                out.println("waiting for messages...");
            }
            CompletionBatch wc = CompletionBatch.allocate(arena, 1);
            SendBatch wr = SendBatch.allocate(arena, 1, 1);
            for (int i = 0; i < msgCount; i++) {
                if (sender) {
                    buf.fill((byte) 0x12); // set the data to non-zero
                    // the message carries the QP number as immediate data, as mc.c says multicast requires
                    wr.clear(0).wrId(0, 0).opcode(0, WrOpcode.SEND_WITH_IMM).flags(0, SendFlags.SIGNALED)
                            .immData(0, qp.qpNum()).ud(0, ah, remoteQpn, remoteQkey)
                            .single(0, buf.address(), msgLength, mr.lkey());
                    qp.postSend(wr, 1);
                }
                if (!getCompletion(cq, wc, cm, deadline)) {
                    return out(id, group, joined);
                }
                out.printf(sender ? "sent message %d%n" : "received message %d%n", i + 1);
            }
            return out(id, group, joined);
        } catch (dev.ibex.cm.RdmaException e) {
            err.printf("%s returned -1 errno %d%n", e.verb(), e.errnoValue());
            return out(id, group, joined);
        } finally {
            // destroy_resources: AH, QP, CQ, MR, PD (ours), id
            closeQuietly(ah);
            try {
                id.destroyQp();
            } catch (RuntimeException e) {
                // already gone
            }
            closeQuietly(cq);
            closeQuietly(mr);
            closeQuietly(pd);
            id.close();
        }
    }

    /**
     * mc.c's {@code out:} label, where every path ends: its return value is {@code rdma_leave_multicast}'s, so a run
     * that never joined fails there (EADDRNOTAVAIL) whatever went wrong before, and a joined one returns 0.
     */
    private int out(CmId id, InetSocketAddress group, boolean joined) {
        if (joined) {
            try {
                id.leaveMulticast(group);
                return 0;
            } catch (dev.ibex.cm.RdmaException e) {
                err.printf("rdma_leave_multicast returned -1 errno %d%n", e.errnoValue());
                return -1;
            }
        }
        err.println("rdma_leave_multicast returned -1 errno 99"); // EADDRNOTAVAIL: no such membership
        return -1;
    }

    /** {@code get_cm_event}: the next event of {@code id}, or {@code null} after printing a different one. */
    private CmEvent getCmEvent(SyncCm cm, CmId id, CmEventType type) {
        CmEvent e = cm.next(id);
        if (e.type() != type) {
            out.printf("event: %s, status: %d%n", SyncCm.name(e.type()), e.status());
            return null;
        }
        return e;
    }

    /**
     * {@code get_completion}: busy-polls the CQ for one completion and checks its status. Between polls it prints
     * the CM events mc.c's {@code cm_thread} would print.
     */
    private boolean getCompletion(CompletionQueue cq, CompletionBatch wc, SyncCm cm, Deadline deadline) {
        while (cq.poll(wc) == 0) {
            CmEvent e = cm.poll();
            if (e != null) {
                out.printf("event %s, status %d%n", SyncCm.name(e.type()), e.status());
            }
            deadline.waitNanos(); // throws once the run's bound has passed
            Thread.yield();
        }
        if (!wc.isSuccess(0)) {
            out.println("work completion status " + wc.status(0).description());
            return false;
        }
        return true;
    }

    private static void closeQuietly(AutoCloseable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (Exception e) {
            // destroy_resources checks nothing either
        }
    }
}
