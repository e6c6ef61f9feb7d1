package dev.ibex.bench.perftest;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs rdma-core's C tools as the baselines, server and client on one RDMA device and address (rxe0 in the
 * Soft-RoCE VM): perftest's {@code ib_send_lat}, {@code ib_send_bw}, {@code ib_write_bw} over rdma_cm ({@code -R},
 * as Ibex connects), and {@code cmtime}'s client against a {@code cmtime} server. Each perftest run gets its own
 * port; the server's readiness is read from the kernel's rdma_cm resource table ({@code rdma resource show
 * cm_id}), never from a fixed sleep.
 *
 * <p>perftest times with the CPU's time-stamp counter. In the qemu TCG guest the vCPUs' TSCs are not synchronized
 * (the guest kernel says "Marking TSC unstable"), so a perftest process that migrates between vCPUs reads a clock
 * that jumps: it then prints a zero bandwidth, a calibration warning ("Correlation coefficient r^2 < 0.9") or a
 * latency off by milliseconds. With two or more CPUs the server is therefore pinned to CPU 0 and the client to
 * CPU 1 ({@code taskset}), as perftest's documentation recommends anyway.
 */
public final class Perftest {
    private static final Duration LIMIT = Duration.ofSeconds(180);

    private final String device;
    private final String address;
    private int nextPort = 18515;
    private long lastClientNanos = -1;

    public Perftest(String device, String address) {
        this.device = device;
        this.address = address;
    }

    /**
     * Runs {@code tool} (server, then client) with {@code args} and returns the client's result row.
     *
     * @param tool "ib_send_lat", "ib_send_bw" or "ib_write_bw"
     */
    public PerftestResult run(String tool, String... args) {
        int port = nextPort++;
        List<String> common = ToolRun.args(tool, "-d", device, "-R", "-F", "-p", Integer.toString(port));
        common.addAll(List.of(args));
        try (ToolRun server = ToolRun.start(pinned(0, common))) {
            awaitListening(port, server);
            List<String> client = new java.util.ArrayList<>(common);
            client.add(address);
            try (ToolRun c = ToolRun.start(pinned(1, client))) {
                String out = c.await(LIMIT);
                lastClientNanos = c.elapsedNanos();
                server.await(LIMIT);
                PerftestResult result = PerftestResult.parse(out);
                if (!result.measured()) {
                    throw new IllegalStateException(c.describe() + " reported no figure (zero or nan):\n" + out);
                }
                return result;
            }
        }
    }

    /**
     * Wall time of the last successful {@link #run}'s client process, start to exit: an upper bound on its test's
     * duration measured with the system clock, which, unlike perftest's TSC, TCG keeps sane.
     */
    public long lastClientNanos() {
        return lastClientNanos;
    }

    /** {@code command} run on CPU {@code cpu} only, when this machine has more than one. */
    static List<String> pinned(int cpu, List<String> command) {
        if (Runtime.getRuntime().availableProcessors() < 2) {
            return command;
        }
        List<String> out = ToolRun.args("taskset", "-c", Integer.toString(cpu));
        out.addAll(command);
        return out;
    }

    /** Starts a {@code cmtime} server on {@code port}; close it when done (it serves until killed). */
    public ToolRun cmtimeServer(int port) {
        ToolRun server = ToolRun.start(ToolRun.args("cmtime", "-b", address, "-p", Integer.toString(port)));
        awaitListening(port, server);
        return server;
    }

    /**
     * Starts {@code command}, a server of the cmtime protocol (the Java port in a child JVM), and waits until it listens
     * on {@code port}; close it when done.
     */
    public static ToolRun server(List<String> command, int port) {
        ToolRun server = ToolRun.start(command);
        try {
            awaitListening(port, server, 120); // a JVM's start in the TCG guest under host load: 10-40 s
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
        return server;
    }

    /**
     * Runs {@code cmtime}'s client for {@code connections} connections against the server on {@code port}.
     *
     * @throws IllegalStateException when a connection failed (an "error" line): the table would time fewer
     */
    public CmtimeResult cmtime(int port, int connections) {
        try (ToolRun c = ToolRun.start(ToolRun.args("cmtime", "-s", address, "-p", Integer.toString(port), "-c",
                Integer.toString(connections)))) {
            String output = c.await(LIMIT);
            if (output.contains("error")) { // a refused or failed connection: its steps' times mean nothing
                throw new IllegalStateException("cmtime reported failed connections:\n" + output);
            }
            return CmtimeResult.parse(output);
        }
    }

    /** Waits until an rdma_cm id listens on {@code port} (the kernel's resource table), at most 30 s. */
    static void awaitListening(int port, ToolRun server) {
        awaitListening(port, server, 30);
    }

    private static void awaitListening(int port, ToolRun server, int seconds) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < deadline) {
            if (!server.isAlive()) {
                throw new IllegalStateException(server.describe() + " ended before listening:\n" + server.output());
            }
            if (listening(port)) {
                return;
            }
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
        }
        throw new IllegalStateException(server.describe() + " not listening on " + port + " after " + seconds + " s:\n"
                + server.output());
    }

    private static boolean listening(int port) {
        try {
            Process p = new ProcessBuilder("rdma", "resource", "show", "cm_id").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor(5, TimeUnit.SECONDS);
            return out.lines().anyMatch(l -> l.contains("LISTEN") && l.contains(":" + port + " "));
        } catch (IOException e) {
            throw new IllegalStateException("cannot run 'rdma resource show cm_id' (iproute2): " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
