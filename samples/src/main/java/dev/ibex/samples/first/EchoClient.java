package dev.ibex.samples.first;

import dev.ibex.cm.loop.EventLoopGroup;
import dev.ibex.cm.reactive.Message;
import dev.ibex.cm.reactive.RdmaClient;
import dev.ibex.cm.reactive.RdmaConnection;
import dev.ibex.samples.cli.FabricOptions;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** The first program's client as a process of its own: sends its words to an {@link EchoServer}, prints the echoes. */
@Command(name = "echo-client", sortOptions = false, description = "RDMA echo client (the first program's client).")
public final class EchoClient implements Callable<Integer> {
    @Option(names = "--host", paramLabel = "IP", defaultValue = "127.0.0.1",
            description = "the server's address (default: ${DEFAULT-VALUE})")
    String host;
    @Option(names = "--port", paramLabel = "PORT", defaultValue = "7471",
            description = "the server's RDMA CM port (default: ${DEFAULT-VALUE})")
    int port;
    @Parameters(paramLabel = "WORD", arity = "0..*", description = "what to send (default: one two three)")
    List<String> words = List.of("one", "two", "three");
    @Mixin FabricOptions fabric = new FabricOptions();

    private final PrintStream out;

    public EchoClient(PrintStream out) {
        this.out = out;
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new EchoClient(System.out)).execute(args));
    }

    @Override
    public Integer call() {
        Duration limit = fabric.timeout() != null ? fabric.timeout() : Duration.ofSeconds(30);
        try (EventLoopGroup loops = fabric.open(8192)) {
            RdmaConnection conn = RdmaClient.create().runOn(loops).host(host).port(port).connectTimeout(limit)
                    .connectNow(limit);
            out.printf("connected from %s (%s) to %s%n", conn.localAddress().getAddress().getHostAddress(),
                    loops.fabric().providerName(), conn.remoteAddress());
            try {
                List<String> echoes = conn.receive().map(Message::asString).take(words.size())
                        .mergeWith(conn.send(Flux.fromIterable(words)).then(Mono.empty()))
                        .collectList()
                        .block(limit);
                out.println("echoed: " + echoes);
                return echoes != null && echoes.equals(words) ? 0 : 1;
            } finally {
                conn.dispose();
            }
        }
    }
}
