import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * Splits the JFR samples of jfr-pairs.sh's recordings by what each busy-polling thread was doing, per round trip
 * (docs/benchmarks.md, "Where a busy-polled Ibex round trip goes in the guest (JFR)"). A single-file program:
 *
 * <pre>
 * java benchmarks/src/main/sh/JfrSplit.java OUT [PAIR...] [--period-ms 2] [--top 25]
 * </pre>
 *
 * For each pair NAME (default: every OUT/ibex*.c and OUT/mini*.c; a pair without recordings gets its window only) it
 * reads OUT/NAME.c (the client's lines, each prefixed with
 * the guest's epoch seconds) for the measured window: from the line of the first measured run to the last one's
 * (Ibex, PingPongJvm: runs 2..R; the minimal program: runs 4..R, its first 3 being warm-up), so N × runs round trips;
 * then counts jdk.ExecutionSample and jdk.NativeMethodSample of both sides' recordings inside it, per thread, and
 * splits each busy thread's samples into categories (below) and µs per round trip (share × the window's mean round
 * trip). The data-path downcalls are critical FFM calls: their time is sampled as Java time with the calling Java
 * frame on top (ContextOps.pollCq, ContextOps.post under postSend/postRecv/postSrqRecv), so a downcall is named by
 * that frame. A sample's category: the downcall it is in, if any, else the nearest (from the top) marker frame.
 */
public final class JfrSplit {
    /** Marker frames, "Class.method" prefixes (simple class names), nearest one to the top wins; in order of test. */
    static final String[][] MARKERS = {
        {"NativeCompletionQueue.poll", "CQ poll: the SPI call's Java (completion batch, checks)"},
        {"NativeQueuePair.post", "post: the SPI call's Java (checks, batch)"},
        {"PingPong$Echo.onMessage", "callback (echo: copy, allocate, release)"},
        {"PingPong$Client.onMessage", "callback (client: histogram, next message)"},
        {"Credits.", "credits"},
        {"CreditOffer.", "credits"},
        {"SendQueue.", "send path (queue, flush, post batch)"},
        {"SendPath.", "send path (queue, flush, post batch)"},
        {"SendBacklog.", "send path (queue, flush, post batch)"},
        {"SendBatch.", "send path (queue, flush, post batch)"},
        {"BatchPosting.", "send path (queue, flush, post batch)"},
        {"ExtendedPosting.", "send path (queue, flush, post batch)"},
        {"EventLoop.flush", "send path (queue, flush, post batch)"},
        {"LoopSrq.", "SRQ (consume, repost)"},
        {"NativeSharedReceiveQueue.", "SRQ (consume, repost)"},
        {"ReceivePath.", "receive path"},
        {"ReceiveQueue.", "receive path"},
        {"Input.", "receive path"},
        {"MessageFragments.", "receive path"},
        {"ConnectionMachine.", "connection (completion handling)"},
        {"Connection.", "connection (completion handling)"},
        {"BufferPool.", "buffers"},
        {"Buffer.", "buffers"},
        {"Slab.", "buffers"},
        {"ReturnStack.", "buffers"},
        {"LoopCompletions.dispatch", "dispatch"},
        {"EndpointTable.", "dispatch"},
        {"LoopTimers.", "timers"},
        {"TimerHeap.", "timers"},
        {"LoopTasks.", "tasks"},
        {"MpscQueue.", "tasks"},
        {"EpollPoller.", "poller look (epoll_wait(0), ready handling)"},
        {"LoopCompletions.pollOnce", "spin loop (Java around the polls)"},
        {"LoopDevice.pollOnce", "spin loop (Java around the polls)"},
        {"LoopDevice.pollUnarmed", "spin loop (Java around the polls)"},
        {"LoopDevice.rearm", "re-arm before blocking"},
        {"CqSpin.", "spin loop (Java around the polls)"},
        {"EventLoop.", "loop turn (run, waitForEvents)"},
        {"MinimalPingPong.count", "spin loop (Java around the polls)"},
        {"MinimalPingPong.awaitBoth", "spin loop (Java around the polls)"},
        {"MinimalPingPong.ping", "minimal: client body (timing, post)"},
        {"MinimalPingPong.serve", "spin loop (Java around the polls)"},
        {"Histogram.", "callback (client: histogram, next message)"},
        {"AbstractHistogram.", "callback (client: histogram, next message)"},
    };

    private JfrSplit() {
    }

    public static void main(String[] args) throws IOException {
        Path out = Path.of(args[0]);
        double periodMs = 2;
        int top = 25;
        List<String> pairs = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            switch (args[i]) {
                case "--period-ms" -> periodMs = Double.parseDouble(args[++i]);
                case "--top" -> top = Integer.parseInt(args[++i]);
                default -> pairs.add(args[i]);
            }
        }
        if (pairs.isEmpty()) {
            try (var s = Files.list(out)) {
                s.map(p -> p.getFileName().toString()).filter(n -> n.matches("(ibex|mini).*\\.c")).sorted()
                        .forEach(n -> pairs.add(n.substring(0, n.length() - 2)));
            }
        }
        for (String pair : pairs) {
            split(out, pair, periodMs, top);
        }
    }

    /** The measured window of a pair and its round trips, from its client's time-stamped lines. */
    record Window(Instant from, Instant to, long roundTrips, List<String> runs) {
        double micros() {
            return java.time.Duration.between(from, to).toNanos() / 1e3;
        }
    }

    static Window window(Path c) throws IOException {
        List<String> lines = Files.readAllLines(c);
        List<double[]> runs = new ArrayList<>(); // [time, run, of, iterations]
        List<String> text = new ArrayList<>();
        int iterations = -1;
        for (String l : lines) {
            int sp = l.indexOf(' ');
            double t = Double.parseDouble(l.substring(0, sp));
            String rest = l.substring(sp + 1);
            var m = java.util.regex.Pattern.compile("pingpong: run (\\d+) of (\\d+), typical ([0-9.]+) us").matcher(rest);
            if (m.find()) {
                runs.add(new double[] {t, Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2))});
                text.add(rest);
            }
            var it = java.util.regex.Pattern.compile("iterations (\\d+)").matcher(rest);
            if (it.find()) {
                iterations = Integer.parseInt(it.group(1));
            }
        }
        boolean minimal = c.getFileName().toString().startsWith("mini");
        int first = minimal ? 3 : 1; // the window starts at the end of this run
        double[] start = runs.stream().filter(r -> r[1] == first).findFirst().orElseThrow();
        double[] end = runs.get(runs.size() - 1);
        long rts = (long) (end[1] - first) * iterations;
        return new Window(instant(start[0]), instant(end[0]), rts, text);
    }

    static Instant instant(double epochSeconds) {
        long s = (long) Math.floor(epochSeconds);
        return Instant.ofEpochSecond(s, Math.round((epochSeconds - s) * 1e9));
    }

    static final class Thread {
        final String name;
        final String side;
        long samples;
        long nativeSamples;
        final Map<String, long[]> categories = new TreeMap<>();
        final Map<String, long[]> tops = new TreeMap<>();
        /** Samples outside the downcalls and the polling, by the nearest dev.ibex.cm / bench frame (Ibex's own work). */
        final Map<String, long[]> own = new TreeMap<>();

        Thread(String side, String name) {
            this.side = side;
            this.name = name;
        }
    }

    static void split(Path out, String pair, double periodMs, int top) throws IOException {
        Window w = window(out.resolve(pair + ".c"));
        double rt = w.micros() / w.roundTrips();
        System.out.printf(Locale.ROOT, "== %s: window %s .. %s (%.2f s), %d round trips, mean round trip %.1f us "
                + "(one-way %.1f)%n", pair, w.from(), w.to(), w.micros() / 1e6, w.roundTrips(), rt, rt / 2);
        w.runs().forEach(r -> System.out.println("   " + r));
        Map<String, Thread> threads = new LinkedHashMap<>();
        for (String side : List.of("server", "client")) {
            Path f = out.resolve(pair + "-" + side + ".jfr");
            if (!Files.exists(f)) {
                continue;
            }
            try (RecordingFile r = new RecordingFile(f)) {
                while (r.hasMoreEvents()) {
                    RecordedEvent e = r.readEvent();
                    String type = e.getEventType().getName();
                    boolean nat = type.equals("jdk.NativeMethodSample");
                    if (!nat && !type.equals("jdk.ExecutionSample")) {
                        continue;
                    }
                    Instant t = e.getStartTime();
                    if (t.isBefore(w.from()) || t.isAfter(w.to())) {
                        continue;
                    }
                    var st = e.getThread("sampledThread");
                    String tn = st == null ? "?" : st.getJavaName();
                    Thread th = threads.computeIfAbsent(side + "/" + tn, k -> new Thread(side, tn));
                    th.samples++;
                    if (nat) {
                        th.nativeSamples++;
                    }
                    List<RecordedFrame> frames = e.getStackTrace() == null ? List.of() : e.getStackTrace().getFrames();
                    String cat = category(frames, nat);
                    th.categories.computeIfAbsent(cat, k -> new long[1])[0]++;
                    if (!cat.startsWith("native") && !cat.startsWith("CQ poll") && !cat.startsWith("spin loop")
                            && !cat.startsWith("post:")) {
                        frames.stream().filter(x -> {
                            String ty = x.getMethod().getType().getName();
                            return ty.startsWith("dev.ibex.cm.") || ty.startsWith("dev.ibex.bench.");
                        }).findFirst().ifPresent(x -> th.own.computeIfAbsent(frame(x), k -> new long[1])[0]++);
                    }
                    String tf = frames.isEmpty() ? "(no frames)" : frame(frames.get(0)) + ":" + frames.get(0).getLineNumber()
                            + (frames.size() > 1 ? " < " + frame(frames.get(1)) + ":" + frames.get(1).getLineNumber() : "");
                    if (!frames.isEmpty() && hidden(frames.get(0))) {
                        tf = "(method handle) < " + frames.stream().filter(x -> !hidden(x)).limit(2)
                                .map(x -> frame(x) + ":" + x.getLineNumber()).reduce((a, b) -> a + " < " + b).orElse("?");
                    }
                    th.tops.computeIfAbsent((nat ? "[native] " : "") + tf, k -> new long[1])[0]++;
                }
            }
        }
        double expected = w.micros() / 1e3 / periodMs;
        for (Thread th : threads.values()) {
            if (th.samples < expected / 10) {
                System.out.printf(Locale.ROOT, "   (%s/%s: %d samples)%n", th.side, th.name, th.samples);
                continue;
            }
            System.out.printf(Locale.ROOT, "-- %s / %s: %d samples (%d native-state), %.0f%% of one per %.1f ms; "
                    + "%.3f samples per round trip%n", th.side, th.name, th.samples, th.nativeSamples,
                    100.0 * th.samples / expected, periodMs, (double) th.samples / w.roundTrips());
            th.categories.entrySet().stream().sorted((a, b) -> Long.compare(b.getValue()[0], a.getValue()[0]))
                    .forEach(c -> System.out.printf(Locale.ROOT, "   %6d  %5.1f%%  %6.1f us/RT  %s%n", c.getValue()[0],
                            100.0 * c.getValue()[0] / th.samples, rt * c.getValue()[0] / th.samples, c.getKey()));
            long[] g = new long[5]; // post_send, polling, look, own Java, other downcalls
            th.categories.forEach((c, n) -> g[group(c)] += n[0]);
            System.out.printf(Locale.ROOT, "   groups: ibv_post_send %.1f%% (%.1f us/RT), polling %.1f%%, poller look "
                    + "%.1f%% (%.1f us/RT), own Java %.1f%% (%.1f us/RT), other downcalls %.1f%% (%.1f us/RT)%n",
                    pct(g[0], th), rt * g[0] / th.samples, pct(g[1], th), pct(g[2], th), rt * g[2] / th.samples,
                    pct(g[3], th), rt * g[3] / th.samples, pct(g[4], th), rt * g[4] / th.samples);
            System.out.println("   own work (not downcalls or polling) by nearest Ibex/bench method:");
            th.own.entrySet().stream().sorted((a, b) -> Long.compare(b.getValue()[0], a.getValue()[0])).limit(top)
                    .forEach(c -> System.out.printf(Locale.ROOT, "   %6d  %5.1f%%  %6.1f us/RT  %s%n", c.getValue()[0],
                            100.0 * c.getValue()[0] / th.samples, rt * c.getValue()[0] / th.samples, c.getKey()));
            System.out.println("   top frames:");
            th.tops.entrySet().stream().sorted((a, b) -> Long.compare(b.getValue()[0], a.getValue()[0])).limit(top)
                    .forEach(c -> System.out.printf(Locale.ROOT, "   %6d  %5.1f%%  %s%n", c.getValue()[0],
                            100.0 * c.getValue()[0] / th.samples, c.getKey()));
        }
        System.out.println();
    }

    /** A frame of a hidden class (a lambda form's, e.g. a downcall handle's) or of java.lang.invoke. */
    static boolean hidden(RecordedFrame f) {
        String type = f.getMethod().getType().getName();
        return type.startsWith("0x") || f.getMethod().isHidden() || type.startsWith("java.lang.invoke.");
    }

    static double pct(long n, Thread th) {
        return 100.0 * n / th.samples;
    }

    /**
     * The docs' groups: 0 ibv_post_send, 1 polling (ibv_poll_cq, the SPI poll's Java, the spin loop), 2 the poller look,
     * 3 the thread's own Java, 4 other downcalls. A post whose samples skid onto its call site (EventLoop.flush) counts
     * as own Java here: look at the top frames.
     */
    static int group(String category) {
        if (category.contains("ibv_post_send")) {
            return 0;
        }
        if (category.startsWith("spin loop") || category.startsWith("CQ poll") || category.contains("ibv_poll_cq")) {
            return 1;
        }
        if (category.contains("epoll_wait") || category.startsWith("poller look")) {
            return 2;
        }
        return category.startsWith("native") ? 4 : 3;
    }

    static String frame(RecordedFrame f) {
        String type = f.getMethod().getType().getName();
        return type.substring(type.lastIndexOf('.') + 1) + "." + f.getMethod().getName();
    }

    /** The downcall the sample is in (the calling frame's method), else the nearest marker frame's phase. */
    static String category(List<RecordedFrame> frames, boolean nat) {
        if (frames.isEmpty()) {
            return "(no stack)";
        }
        for (int i = 0, real = 0; i < frames.size() && real < 3; i++) {
            String f = frame(frames.get(i));
            if (hidden(frames.get(i))) {
                continue; // a method handle's lambda form (the downcall's own frames): its caller names it
            }
            real++;
            String d = switch (f) {
                case "ContextOps.pollCq" -> "native: ibv_poll_cq (+ FFM glue)";
                case "ContextOps.postSend" -> "native: ibv_post_send (+ FFM glue)";
                case "ContextOps.postRecv" -> "native: ibv_post_recv (+ FFM glue)";
                case "ContextOps.postSrqRecv" -> "native: ibv_post_srq_recv (+ FFM glue)";
                case "ContextOps.reqNotifyCq" -> "native: ibv_req_notify_cq";
                case "LibC.epollWait" -> "native: epoll_wait (poller look)";
                case "LibC.read" -> "native: read";
                case "LibC.write" -> "native: write";
                default -> null;
            };
            if (d != null) {
                return d;
            }
            if (f.startsWith("QpExOps.")) {
                return "native: ibv_wr_* (extended posting, + FFM glue)";
            }
            if (f.equals("ContextOps.post")) {
                continue; // the caller names which
            }
            if (real == 1 && (f.equals("System.nanoTime") || f.equals("System.currentTimeMillis"))) {
                return "clock read (System.nanoTime)";
            }
        }
        if (nat) {
            return "native (other): " + frame(frames.get(0));
        }
        for (RecordedFrame fr : frames) {
            String f = frame(fr);
            String type = fr.getMethod().getType().getName();
            if (type.startsWith("jdk.jfr.")) {
                return "JFR itself";
            }
            for (String[] m : MARKERS) {
                if (f.startsWith(m[0])) {
                    return m[1];
                }
            }
        }
        return "other: " + frame(frames.get(frames.size() - 1));
    }
}
