package dev.ibex.samples.kv;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.softroce.net.FreePort;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The key-value sample as a user runs it: {@link KvServer} and {@link KvClient}s as separate processes on soft-roce
 * (server 127.0.0.3, clients 127.0.0.2 and 127.0.0.4: one loopback address per process, one UDP port), and the tour
 * section in process. Every wait is bounded; the processes are killed after each test.
 */
class KvTest {
    static final String SERVER = "127.0.0.3";
    static final String WATCHER = "127.0.0.2";
    static final String WRITER = "127.0.0.4";
    static final Duration LIMIT = Duration.ofSeconds(90);

    final int udp = FreePort.on(SERVER, WATCHER, WRITER);
    final List<Proc> processes = new ArrayList<>();

    @AfterEach
    void killAll() {
        processes.forEach(Proc::kill);
    }

    @Test
    void putGetAndWatchBetweenAServerProcessAndTwoClientProcesses() {
        Proc server = start(KvServer.class, SERVER, "--host", SERVER, "--port", "0");
        String listening = server.await("kv-server listening on ");
        String port = listening.replaceAll(".*:(\\d+) .*", "$1");
        assertThat(listening).contains(SERVER).contains("provider soft-roce");

        Proc first = start(KvClient.class, WRITER, "--host", SERVER, "--port", port, "put", "color", "blue",
                "get", "color", "get", "shape");
        assertThat(first.exit()).as(first.output()).isEqualTo(1); // the missing key is reported, and fails the run
        assertThat(first.output()).contains("put color = blue (new)", "get color = blue",
                "get shape: no such key: shape");

        Proc watcher = start(KvClient.class, WATCHER, "--host", SERVER, "--port", port, "watch", "color", "3");
        watcher.await("watch color: blue"); // the current value first: the stream is in place
        Proc second = start(KvClient.class, WRITER, "--host", SERVER, "--port", port, "put", "color", "red",
                "put", "color", "green");
        assertThat(second.exit()).as(second.output()).isZero();
        assertThat(second.output()).contains("put color = red (was blue)", "put color = green (was red)");
        assertThat(watcher.exit()).as(watcher.output()).isZero();
        assertThat(watcher.output().lines().filter(l -> l.startsWith("watch color: ")))
                .containsExactly("watch color: blue", "watch color: red", "watch color: green");
    }

    @Test
    void aClientOfAPortWhereNothingListensFailsWithTheTypedReject() {
        Proc server = start(KvServer.class, SERVER, "--host", SERVER, "--port", "0");
        int port = Integer.parseInt(server.await("kv-server listening on ").replaceAll(".*:(\\d+) .*", "$1"));
        Proc client = start(KvClient.class, WRITER, "--host", SERVER, "--port", Integer.toString(port + 1),
                "get", "color");
        assertThat(client.exit()).as(client.output()).isEqualTo(1);
        assertThat(client.output()).contains("kv-client: dev.ibex.cm.RdmaConnectException")
                .contains("rejected: nobody listens on that port");
    }

    @Test
    void theTourSectionPrintsItsFigures() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        KvTour.run(new PrintStream(bytes, true, StandardCharsets.UTF_8), Duration.ofSeconds(60), 200);
        String out = bytes.toString(StandardCharsets.UTF_8);
        assertThat(out).contains("RSocket key-value service on 127.0.0.2:", "PUT color=blue, GET color -> blue",
                "WATCH color saw [blue, red, green]", "200 GETs one at a time: round trip p50 ", "a 1 MiB value PUT and read back");
    }

    Proc start(Class<?> main, String ip, String... args) {
        String java = ProcessHandle.current().info().command().orElseThrow();
        List<String> cmd = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED",
                "--sun-misc-unsafe-memory-access=allow", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), main.getName(),
                "--provider", "soft-roce", "-D", "ibex.softroce.devices=s=" + ip, "-D", "ibex.softroce.port=" + udp,
                "--timeout", "120"));
        cmd.addAll(List.of(args));
        try {
            Proc p = new Proc(main.getSimpleName(), new ProcessBuilder(cmd).redirectErrorStream(true).start());
            processes.add(p);
            return p;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A sample process: its merged output collected line by line. */
    static final class Proc {
        final String name;
        final Process process;
        final List<String> lines = new ArrayList<>();
        final Thread reader;

        Proc(String name, Process process) {
            this.name = name;
            this.process = process;
            reader = Thread.ofPlatform().daemon().start(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    String l;
                    while ((l = r.readLine()) != null) {
                        synchronized (lines) {
                            lines.add(l);
                        }
                    }
                } catch (IOException gone) {
                    // ended
                }
            });
        }

        String output() {
            synchronized (lines) {
                return String.join("\n", lines);
            }
        }

        String await(String prefix) {
            Awaitility.await().atMost(LIMIT).alias(name + " printing '" + prefix + "':\n" + output())
                    .until(() -> output().lines().anyMatch(l -> l.startsWith(prefix)) || !process.isAlive());
            return output().lines().filter(l -> l.startsWith(prefix)).findFirst()
                    .orElseThrow(() -> new AssertionError(name + " ended without '" + prefix + "':\n" + output()));
        }

        int exit() {
            Awaitility.await().atMost(LIMIT).alias(name + " exiting:\n" + output()).until(() -> !process.isAlive());
            try {
                reader.join(Duration.ofSeconds(5)); // the process ended: its output ends too, read the last lines
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return process.exitValue();
        }

        void kill() {
            process.destroyForcibly();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
