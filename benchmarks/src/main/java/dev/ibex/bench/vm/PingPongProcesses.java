package dev.ibex.bench.vm;

import dev.ibex.bench.perftest.ToolRun;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A minimal ping-pong run as two processes, as perftest runs: a server, then a client whose last line gives the
 * figures. The command is the C program ({@code benchmarks/src/main/c/pingpong.c}, built in the guest by
 * {@link #compileC}), a JVM running {@link MinimalPingPong}, or one running Ibex's ping-pong ({@link PingPongJvm}); all
 * take {@code server|client <ip> <port> <iterations> <size> [events]} and print {@code one-way typical X us, p99 Y us}
 * (the first two with {@code , empty poll Z ns}).
 */
final class PingPongProcesses {
    private static final Pattern FIGURES = Pattern.compile(
            "one-way typical ([0-9.]+) us, p99 ([0-9.]+) us(?:, empty poll ([0-9.]+) ns)?");

    private final String address;
    private final Duration openLimit;
    private final Duration runLimit;

    PingPongProcesses(String address, Duration openLimit, Duration runLimit) {
        this.address = address;
        this.openLimit = openLimit;
        this.runLimit = runLimit;
    }

    /**
     * The command of a child JVM running {@code main} from this JVM's class path: this JVM's {@code java}, {@code flags},
     * the class path, the class. Arguments follow it.
     */
    static List<String> javaCommand(List<String> flags, Class<?> main) {
        List<String> jvm = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java")));
        jvm.addAll(flags);
        jvm.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
        return jvm;
    }

    /** This JVM's own flags, for children that run with the same. */
    static List<String> ownFlags() {
        return java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments();
    }

    /** Builds the C ping-pong with gcc into a temporary directory; the binary's path. */
    static Path compileC() {
        Path src = Path.of("benchmarks/src/main/c/pingpong.c").toAbsolutePath();
        try {
            Path bin = Files.createTempDirectory("ibex-floor").resolve("pingpong");
            try (ToolRun gcc = ToolRun.start(List.of("gcc", "-O2", "-o", bin.toString(), src.toString(), "-lrdmacm",
                    "-libverbs"))) {
                gcc.await(Duration.ofMinutes(2));
            }
            return bin;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Runs a server and a client of {@code command} on {@code port}.
     *
     * @param iterations round trips per run
     * @param events whether both wait for CQ events instead of busy-polling
     * @return {@code {typical, p99 (us), empty poll (ns)}} from the client's output (NaN: the client printed no empty
     *     poll)
     * @throws IllegalStateException when the server does not listen, a side fails (the message then holds what the
     *     server printed too) or prints no figures
     */
    double[] run(List<String> command, int port, int iterations, int size, boolean events) {
        return run(command, port, iterations, size, events, runLimit);
    }

    /** As {@link #run(List, int, int, int, boolean)}, the client given {@code limit} to finish (its JVM's warm-up). */
    double[] run(List<String> command, int port, int iterations, int size, boolean events, Duration limit) {
        String p = Integer.toString(port);
        List<String> tail = new ArrayList<>(List.of(address, p, Integer.toString(iterations), Integer.toString(size)));
        if (events) {
            tail.add("events");
        }
        List<String> server = new ArrayList<>(command);
        server.add("server");
        server.addAll(tail);
        List<String> client = new ArrayList<>(command);
        client.add("client");
        client.addAll(tail);
        try (ToolRun s = ToolRun.start(server)) {
            awaitListening(s::isAlive, s::output, System.nanoTime() + openLimit.toNanos());
            String line;
            try (ToolRun cl = ToolRun.start(client)) {
                line = cl.await(limit);
            } catch (IllegalStateException e) { // what the server saw tells a refusal's cause
                throw new IllegalStateException(e.getMessage() + "\n  the server's output: " + s.output(), e);
            }
            s.await(runLimit);
            return figures(line, command.getFirst());
        }
    }

    /**
     * Waits until the server's output says it listens.
     *
     * @throws IllegalStateException when it exits or {@code deadline} passes first
     */
    static void awaitListening(java.util.function.BooleanSupplier alive, java.util.function.Supplier<String> output,
            long deadline) {
        for (;;) {
            // alive read before the output: a server that printed and exited in between is seen listening (read the
            // other way round, a fake server that prints and exits at once failed the run now and then)
            boolean wasAlive = alive.getAsBoolean();
            if (output.get().contains("listening")) {
                return;
            }
            if (!wasAlive || System.nanoTime() > deadline) {
                throw new IllegalStateException("the ping-pong server did not listen: " + output.get());
            }
            LockSupport.parkNanos(20_000_000L);
        }
    }

    /**
     * Reads a client's figures.
     *
     * @return {@code {typical, p99 (us), empty poll (ns, NaN when not printed)}}
     * @throws IllegalStateException when {@code output} holds none (the message shows it, and {@code program})
     */
    static double[] figures(String output, String program) {
        Matcher m = FIGURES.matcher(output);
        if (!m.find()) {
            throw new IllegalStateException("no figures from " + program + ": " + output);
        }
        return new double[] {Double.parseDouble(m.group(1)), Double.parseDouble(m.group(2)),
                m.group(3) == null ? Double.NaN : Double.parseDouble(m.group(3))};
    }
}
