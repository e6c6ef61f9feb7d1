package dev.ibex.bench.scale;

import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.loop.LoopOptions;
import dev.ibex.cm.reactive.RdmaMembership;
import dev.ibex.cm.reactive.RdmaMulticast;
import dev.ibex.cm.spi.ProviderConfig;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import java.util.concurrent.Callable;
import dev.ibex.bench.report.Cli;
import picocli.CommandLine;

/**
 * The scale benchmark's multicast process: one soft-roce device joins {@code --groups} groups (each an
 * {@link RdmaMulticast} membership with a receive window of 2), a publisher on a second device sends one datagram
 * to every 64th group, then every member leaves. Prints {@code MCAST} with the join and leave times, the threads
 * before, while joined and after, the loops and the file descriptors while joined.
 *
 * <pre>
 * java -cp benchmarks.jar dev.ibex.bench.scale.MulticastScale --host 127.0.0.2 --publisher 127.0.0.3
 *      --udp-port 47913 --groups 2048
 * </pre>
 */
public final class MulticastScale {
    private MulticastScale() {}

    public static void main(String[] args) {
        System.exit(Cli.execute(new Command(), args));
    }

    /** The command line the scale driver gives. */
    @CommandLine.Command(name = "MulticastScale", mixinStandardHelpOptions = true, sortOptions = false,
            description = "The scale benchmark's multicast process: joins --groups groups on one device, a publisher "
                    + "on a second sends to a sample, every member leaves; prints MCAST with the figures.")
    public static final class Command implements Callable<Integer> {
        @CommandLine.Option(names = "--host", defaultValue = "127.0.0.2", description = "the members' device "
                + "(default ${DEFAULT-VALUE})")
        String host;

        @CommandLine.Option(names = "--publisher", defaultValue = "127.0.0.3", description = "the publisher's device "
                + "(default ${DEFAULT-VALUE})")
        String publisher;

        @CommandLine.Option(names = "--udp-port", required = true, description = "soft-roce's UDP port")
        int udpPort;

        @CommandLine.Option(names = "--groups", defaultValue = "2048", description = "groups (default ${DEFAULT-VALUE})")
        int groups;

        @CommandLine.Option(names = "--concurrency", defaultValue = "64",
                description = "joins at once (default ${DEFAULT-VALUE})")
        int concurrency;

        @Override
        public Integer call() throws Exception {
            run(host, publisher, Integer.toString(udpPort), groups, concurrency);
            return Cli.OK;
        }
    }

    static void run(String host, String publisherHost, String udp, int groups, int concurrency) throws Exception {
        LoopOptions options = LoopOptions.DEFAULT.withThreadName("mc");
        EventLoopGroup members = EventLoopGroup.open("soft-roce", ProviderConfig.of(Map.of("ibex.softroce.devices",
                "mc=" + host, "ibex.softroce.port", udp)), options);
        EventLoopGroup publishers = EventLoopGroup.open("soft-roce", ProviderConfig.of(Map.of(
                "ibex.softroce.devices", "pub=" + publisherHost, "ibex.softroce.port", udp)),
                options.withLoops(1).withThreadName("pub"));
        int net = ThreadLocalRandom.current().nextInt(1, 255);
        RdmaMulticast member = RdmaMulticast.create().runOn(members).host(host).receiveWindow(2).receiveQueue(1);
        int threadsBefore = Thread.activeCount();

        long t0 = System.nanoTime();
        List<RdmaMembership> joined = Flux.range(0, groups)
                .flatMapSequential(i -> member.join(group(net, i)), concurrency)
                .collectList().block(Duration.ofMinutes(5));
        long joinNanos = System.nanoTime() - t0;
        int threadsJoined = Thread.activeCount();
        long fds = openFiles();

        // a few groups carry a datagram, to show the members hear their own group
        RdmaMulticast pub = RdmaMulticast.create().runOn(publishers).host(publisherHost).sendOnly(true);
        int heard = 0;
        int tried = 0;
        for (int i = 0; i < groups; i += 64) {
            tried++;
            RdmaMembership m = joined.get(i);
            Mono<String> got = m.receive().next().map(d -> d.asString()).timeout(Duration.ofSeconds(10))
                    .onErrorReturn("none").cache();
            got.subscribe();
            RdmaMembership p = pub.join(group(net, i)).block(Duration.ofSeconds(30));
            p.send(Mono.just("g" + i)).block(Duration.ofSeconds(30));
            if (got.block(Duration.ofSeconds(15)).equals("g" + i)) {
                heard++;
            }
            p.leave().block(Duration.ofSeconds(30));
        }

        long t1 = System.nanoTime();
        Flux.fromIterable(joined).flatMap(RdmaMembership::leave, concurrency).blockLast(Duration.ofMinutes(5));
        long leaveNanos = System.nanoTime() - t1;
        int threadsAfter = Thread.activeCount();

        Map<String, Object> m = new LinkedHashMap<>();
        m.put("groups", groups);
        m.put("joined", joined.size());
        m.put("joinMillis", TimeUnit.NANOSECONDS.toMillis(joinNanos));
        m.put("leaveMillis", TimeUnit.NANOSECONDS.toMillis(leaveNanos));
        m.put("heard", heard);
        m.put("tried", tried);
        m.put("threadsBefore", threadsBefore);
        m.put("threadsJoined", threadsJoined);
        m.put("threadsAfter", threadsAfter);
        m.put("loops", members.loops().size() + publishers.loops().size());
        m.put("fdsJoined", fds);
        System.out.println(KeyValues.format("MCAST", m));
        publishers.close();
        members.close();
        System.exit(0);
    }

    /** Group {@code i} (up to 14,000) of this run's {@code net}: 239.(200 + i / 256).net.(i % 256). */
    private static InetSocketAddress group(int net, int i) {
        return new InetSocketAddress("239." + (200 + (i >> 8)) + "." + net + "." + (i & 0xFF), 0);
    }

    private static long openFiles() {
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            return s.count();
        } catch (IOException e) {
            return -1;
        }
    }
}
