package dev.ibex.samples.kv;

import dev.ibex.cm.reactive.RdmaServer;
import dev.ibex.rsocket.CloseableRdmaServer;
import dev.ibex.rsocket.RdmaServerTransport;
import dev.ibex.samples.cli.FabricOptions;
import dev.ibex.samples.cli.SampleCommand;
import dev.ibex.samples.cli.SampleRun;
import io.rsocket.SocketAcceptor;
import io.rsocket.core.RSocketServer;
import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The key-value server: {@link KvService} behind RSocket over Ibex ({@code rsocket} module), until stopped or
 * {@code --timeout}. Prints {@code kv-server listening on HOST:PORT (provider P)}.
 */
@Command(name = "kv-server", sortOptions = false, separator = " ",
        description = "Key-value service (GET/PUT request-response, WATCH request-stream) over RSocket over RDMA.")
public final class KvServer extends SampleCommand {
    @Option(names = "--host", paramLabel = "ADDR", defaultValue = "0.0.0.0",
            description = "address to listen on: an RDMA device's (default: every device)")
    String host;
    @Option(names = "--port", paramLabel = "PORT", defaultValue = "7878", description = "RDMA CM port (default 7878)")
    int port;
    @Mixin FabricOptions fabric = new FabricOptions();

    private final CompletableFuture<CloseableRdmaServer> listening = new CompletableFuture<>();

    public KvServer(PrintStream out, PrintStream err) {
        super(out, err);
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new KvServer(System.out, System.err)).execute(args));
    }

    /** Completes with the bound server once it listens (tests and launchers wait for it). */
    public CompletableFuture<CloseableRdmaServer> listening() {
        return listening;
    }

    @Override
    public Integer call() {
        try (SampleRun run = begin(new SampleRun(fabric.open(8192), out, err))) {
            KvService service = new KvService();
            CloseableRdmaServer server = RSocketServer.create(SocketAcceptor.with(service))
                    .bind(RdmaServerTransport.create(RdmaServer.create().runOn(run.group()).host(host).port(port)))
                    .block(Duration.ofSeconds(30));
            out.printf("kv-server listening on %s:%d (provider %s)%n", server.address().getAddress().getHostAddress(),
                    server.address().getPort(), run.group().fabric().providerName());
            out.flush();
            listening.complete(server);
            try {
                return run.await(fabric.timeout());
            } finally {
                server.dispose();
                server.onClose().block(Duration.ofSeconds(10));
                out.println("kv-server stopped, " + service.size() + " keys");
            }
        } catch (RuntimeException e) {
            listening.completeExceptionally(e);
            err.println("kv-server: " + e.getMessage());
            return 1;
        }
    }
}
