package dev.ibex.bench.vm;

import dev.ibex.bench.report.Comparison;
import dev.ibex.bench.report.Rounds;
import dev.ibex.bench.report.Target;
import dev.ibex.cm.spi.Access;
import dev.ibex.cm.spi.AhAttr;
import dev.ibex.cm.spi.CompletionBatch;
import dev.ibex.cm.spi.CompletionQueue;
import dev.ibex.cm.spi.DeviceContext;
import dev.ibex.cm.spi.Fabric;
import dev.ibex.cm.spi.Gid;
import dev.ibex.cm.spi.MemoryRegion;
import dev.ibex.cm.spi.Mtu;
import dev.ibex.cm.spi.ProtectionDomain;
import dev.ibex.cm.spi.ProviderConfig;
import dev.ibex.cm.spi.Providers;
import dev.ibex.cm.spi.QpAttr;
import dev.ibex.cm.spi.QpCap;
import dev.ibex.cm.spi.QpInitAttr;
import dev.ibex.cm.spi.QpState;
import dev.ibex.cm.spi.QpType;
import dev.ibex.cm.spi.QueuePair;
import dev.ibex.cm.spi.SendBatch;
import dev.ibex.cm.spi.SendFlags;
import dev.ibex.cm.spi.WrBatch;
import dev.ibex.cm.spi.WrOpcode;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.net.InetAddress;
import java.util.EnumSet;
import java.util.Locale;

/**
 * Extended posting against classic posting on the rdma-core provider, in the Soft-RoCE VM: one RC QP pair on one
 * device (rxe0, connected by hand through its IPv4 RoCEv2 GID) streams 64-byte RDMA WRITEs in batches of
 * {@value #BATCH}, posted either as a classic {@code ibv_post_send} WR list ({@link QueuePair#postSend}, the
 * baseline) or through {@link WrBatch} ({@code ibv_wr_start}, per WR {@code wr_rdma_write} + {@code wr_set_sge},
 * {@code ibv_wr_complete}: verbs-ffi's {@code ExtendedPosting}). Only the last WR of a batch is signaled; at most
 * {@value #WINDOW} batches are in flight. Interleaved rounds whose order alternates give two rows, each the median
 * ratio of extended over classic measured in the same run:
 * <ul>
 *   <li>WRs per second through the device (the whole data path: posting, rxe's send and completion);</li>
 *   <li>nanoseconds per post call (the posting API alone: building the WRs and the doorbell).</li>
 * </ul>
 * Informational (no target: the point is to know the price of the all-or-nothing API). Exit status 0 when both
 * kinds ran, 1 when a run failed.
 *
 * <pre>
 * mvn -B -ntp -o -q -pl benchmarks -am package -DskipTests
 * lab/rxe-vm -- java --enable-native-access=ALL-UNNAMED -XX:TieredStopAtLevel=1 -XX:+UseSerialGC \
 *     -cp benchmarks/target/benchmarks.jar dev.ibex.bench.vm.WrBatchBench [rounds] [seconds per run]
 * </pre>
 */
public final class WrBatchBench {
    static final int BATCH = 16;
    static final int WINDOW = 4;
    static final int SIZE = 64;
    static final int GIDS_SEARCHED = 16;

    private final QueuePair x;
    private final QueuePair y;
    private final CompletionQueue cq;
    private final MemoryRegion local;
    private final MemoryRegion remote;
    private final SendBatch list;
    private final CompletionBatch wc;

    private WrBatchBench(QueuePair x, QueuePair y, CompletionQueue cq, MemoryRegion local, MemoryRegion remote,
            Arena arena) {
        this.x = x;
        this.y = y;
        this.cq = cq;
        this.local = local;
        this.remote = remote;
        this.list = SendBatch.allocate(arena, BATCH, 1);
        this.wc = CompletionBatch.allocate(arena, 16);
    }

    /** One run's figures: WRs per second and mean nanoseconds per post call. */
    record Run(double wrPerSecond, double nanosPerPost) {
    }

    /**
     * Runs the comparison.
     *
     * @param args optional: rounds (default 5), seconds per run (default 2)
     * @throws Exception when the device or the run fails
     */
    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        double seconds = args.length > 1 ? Double.parseDouble(args[1]) : 2;
        String deviceName = System.getenv().getOrDefault("IBEX_VM_DEV", "rxe0");
        String address = System.getenv("IBEX_VM_ADDR");
        PrintStream out = System.out;
        if (address == null) {
            out.println("WrBatchBench: IBEX_VM_ADDR is not set: run it inside lab/rxe-vm");
            System.exit(1);
        }
        try (Fabric fabric = Providers.byName("rdma-core").orElseThrow().open(ProviderConfig.DEFAULT);
                Arena arena = Arena.ofShared()) {
            DeviceContext dev = fabric.devices().stream().filter(d -> d.device().name().equals(deviceName))
                    .findFirst().orElseThrow(() -> new IllegalStateException("no device " + deviceName));
            Gid gid = Gid.of(InetAddress.getByName(address));
            int gidIndex = gidIndex(dev, gid);
            ProtectionDomain pd = dev.allocPd();
            CompletionQueue cq = dev.createCompletionQueue(1024, null, 0);
            QpCap cap = new QpCap(BATCH * WINDOW * 2, 16, 1, 1, 0);
            QueuePair x = pd.createQueuePair(new QpInitAttr(cq, cq, null, cap, QpType.RC, false, null));
            QueuePair y = pd.createQueuePair(new QpInitAttr(cq, cq, null, cap, QpType.RC, false, null));
            MemoryRegion local = pd.registerMemory(arena.allocate(1 << 16, 4096), EnumSet.allOf(Access.class));
            MemoryRegion remote = pd.registerMemory(arena.allocate(1 << 16, 4096), EnumSet.allOf(Access.class));
            connect(x, y, gid, gidIndex);
            WrBatchBench b = new WrBatchBench(x, y, cq, local, remote, arena);
            b.run(false, 0.5); // warm-up, both kinds
            b.run(true, 0.5);
            Rounds rate = new Rounds("64 B RDMA WRITE, " + BATCH + "/batch: WRs per second", Target.none());
            Rounds cost = new Rounds("  ns per post call (" + BATCH + " WRs)", Target.none());
            for (int r = 0; r < rounds; r++) {
                boolean extendedFirst = r % 2 == 1;
                Run first = b.run(extendedFirst, seconds);
                Run second = b.run(!extendedFirst, seconds);
                Run classic = extendedFirst ? second : first;
                Run extended = extendedFirst ? first : second;
                out.printf(Locale.ROOT, "  round %d: classic %.0f WR/s %.0f ns/post, extended %.0f WR/s %.0f ns/post%n",
                        r + 1, classic.wrPerSecond(), classic.nanosPerPost(), extended.wrPerSecond(),
                        extended.nanosPerPost());
                rate.add(classic.wrPerSecond(), extended.wrPerSecond());
                cost.add(classic.nanosPerPost(), extended.nanosPerPost());
            }
            out.println("WrBatch (ibv_wr_*, ExtendedPosting) vs classic ibv_post_send lists on " + deviceName
                    + ", " + rounds + " rounds of " + seconds + " s (ratio = extended / classic, same run):");
            for (Comparison c : new Comparison[] {rate.comparison(), cost.comparison()}) {
                out.printf(Locale.ROOT, "%-48s classic %12.1f  extended %12.1f  ratio %.2fx  (%s)%n", c.metric(),
                        c.baseline(), c.ibex(), c.ratio(), c.spread());
            }
            for (AutoCloseable c : new AutoCloseable[] {x, y, local, remote, cq, pd}) {
                c.close();
            }
        }
    }

    private static int gidIndex(DeviceContext dev, Gid gid) {
        for (int i = 0; i < GIDS_SEARCHED; i++) {
            if (dev.queryGid(1, i).equals(gid)) {
                return i;
            }
        }
        throw new IllegalStateException(dev.device().name() + " has no GID " + gid + " in its first "
                + GIDS_SEARCHED + " entries");
    }

    private static void connect(QueuePair x, QueuePair y, Gid gid, int gidIndex) {
        int access = Access.mask(EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
        for (QueuePair q : new QueuePair[] {x, y}) {
            q.modify(new QpAttr().state(QpState.INIT).pkeyIndex(0).portNum(1).accessFlags(access));
        }
        AhAttr path = AhAttr.roce(gid, gidIndex, 1);
        x.modify(new QpAttr().state(QpState.RTR).ahAttr(path).pathMtu(Mtu.MTU_1024).destQpNum(y.qpNum()).rqPsn(0x200)
                .maxDestRdAtomic(1).minRnrTimer(1));
        y.modify(new QpAttr().state(QpState.RTR).ahAttr(path).pathMtu(Mtu.MTU_1024).destQpNum(x.qpNum()).rqPsn(0x100)
                .maxDestRdAtomic(1).minRnrTimer(1));
        x.modify(new QpAttr().state(QpState.RTS).timeout(14).retryCnt(7).rnrRetry(7).sqPsn(0x100).maxRdAtomic(1));
        y.modify(new QpAttr().state(QpState.RTS).timeout(14).retryCnt(7).rnrRetry(7).sqPsn(0x200).maxRdAtomic(1));
    }

    /** Streams batches for {@code seconds}, then drains what is in flight. */
    Run run(boolean extended, double seconds) {
        long end = System.nanoTime() + (long) (seconds * 1e9);
        long postNanos = 0;
        long posts = 0;
        int inFlight = 0;
        long t0 = System.nanoTime();
        long now = t0;
        while (now < end || inFlight > 0) {
            if (inFlight < WINDOW && now < end) {
                long p0 = System.nanoTime();
                if (extended) {
                    postExtended();
                } else {
                    postClassic();
                }
                postNanos += System.nanoTime() - p0;
                posts++;
                inFlight++;
            }
            int n = cq.poll(wc);
            for (int i = 0; i < n; i++) {
                if (!wc.isSuccess(i)) {
                    throw new IllegalStateException("completion " + wc.status(i) + " for WR " + wc.wrId(i));
                }
            }
            inFlight -= n;
            now = System.nanoTime();
            if (now - t0 > (long) (seconds * 1e9) + 60_000_000_000L) {
                throw new IllegalStateException(inFlight + " batches did not complete within 60 s");
            }
        }
        double elapsed = (now - t0) / 1e9;
        return new Run(posts * BATCH / elapsed, (double) postNanos / posts);
    }

    private void postClassic() {
        for (int i = 0; i < BATCH; i++) {
            list.clear(i).wrId(i, i).opcode(i, WrOpcode.RDMA_WRITE)
                    .flags(i, i == BATCH - 1 ? SendFlags.SIGNALED : 0)
                    .rdma(i, remote.address() + (long) i * SIZE, remote.rkey())
                    .single(i, local.address() + (long) i * SIZE, SIZE, local.lkey());
        }
        x.postSend(list, BATCH);
    }

    private void postExtended() {
        WrBatch wr = x.startWr();
        for (int i = 0; i < BATCH; i++) {
            wr.wrId(i).flags(i == BATCH - 1 ? SendFlags.SIGNALED : 0)
                    .rdmaWrite(remote.rkey(), remote.address() + (long) i * SIZE)
                    .setSge(local.lkey(), local.address() + (long) i * SIZE, SIZE);
        }
        wr.complete();
    }
}
