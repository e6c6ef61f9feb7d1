package dev.ibex.bench.callback;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * One point of the connection curve ({@code loopback.ScalingCurves}) alone, from a fresh JVM, with soft-roce's
 * transport counters by cause after every round: where a retransmission without injected faults came from (issue
 * 17). A go-back-N retry follows a retransmit timeout (the ACK came later than the local ACK timeout, or a packet
 * was lost), an RNR NAK (the receiver's queue had no receive posted) or a PSN-sequence NAK (a packet was lost);
 * {@code Udp RcvbufErrors} (whole host, from {@code /proc/net/snmp}) counts datagrams a full socket buffer dropped.
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp benchmarks/target/benchmarks.jar \
 *     dev.ibex.bench.callback.EchoFleetCauses [connections 256] [loops per side 2] [rounds 8] [in flight 4]
 * </pre>
 *
 * The first round runs on code the JIT has not compiled yet (the curve reaches 256 connections warm).
 */
public final class EchoFleetCauses {
    /** The counters printed, as soft-roce names them, summed over both sides. */
    static final List<String> COUNTERS = List.of("retransmissions", "retransmit.timeouts", "rnr.naks.received",
            "out.of.sequence", "duplicates");

    private EchoFleetCauses() {
    }

    /**
     * Runs the point and prints a line per round.
     *
     * @param args connections, loops per side, rounds, messages in flight per connection (all optional)
     */
    public static void main(String[] args) {
        int connections = args.length > 0 ? Integer.parseInt(args[0]) : 256;
        int loops = args.length > 1 ? Integer.parseInt(args[1]) : 2;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 8;
        int inFlight = args.length > 3 ? Integer.parseInt(args[3]) : 4;
        PrintStream out = System.out;
        try (EchoFleet fleet = EchoFleet.open(LoopbackHosts.softRoce(7600), loops, connections, 64, inFlight,
                Duration.ofSeconds(60))) {
            long[] base = counters(fleet);
            long rcvbufBase = rcvbufErrors();
            for (int r = 1; r <= rounds; r++) {
                double rate = fleet.run(Duration.ofMillis(400), Duration.ofSeconds(30));
                long[] now = counters(fleet);
                StringBuilder line = new StringBuilder(String.format(Locale.ROOT,
                        "%d connections, %d loop(s)/side, round %d: %.1f k echoes/s; since open:", connections, loops,
                        r, rate / 1e3));
                for (int i = 0; i < now.length; i++) {
                    line.append(' ').append(COUNTERS.get(i)).append(' ').append(now[i] - base[i]);
                }
                long rcvbuf = rcvbufErrors();
                line.append(", Udp RcvbufErrors ").append(rcvbuf < 0 ? "?" : Long.toString(rcvbuf - rcvbufBase));
                out.println(line);
            }
        }
    }

    private static long[] counters(EchoFleet fleet) {
        long[] c = new long[COUNTERS.size()];
        for (int i = 0; i < c.length; i++) {
            c[i] = fleet.counter(COUNTERS.get(i));
        }
        return c;
    }

    /** {@code Udp: RcvbufErrors} of the whole host, or -1 where it cannot be read. */
    static long rcvbufErrors() {
        try {
            List<String> lines = Files.readAllLines(Path.of("/proc/net/snmp"));
            for (int i = 0; i + 1 < lines.size(); i++) {
                if (lines.get(i).startsWith("Udp:") && lines.get(i + 1).startsWith("Udp:")) {
                    String[] names = lines.get(i).trim().split("\\s+");
                    String[] values = lines.get(i + 1).trim().split("\\s+");
                    for (int k = 1; k < names.length && k < values.length; k++) {
                        if (names[k].equals("RcvbufErrors")) {
                            return Long.parseLong(values[k]);
                        }
                    }
                    return -1;
                }
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }
}
