package dev.ibex.samples.kv;

import dev.ibex.cm.reactive.RdmaClient;
import dev.ibex.rsocket.RdmaClientTransport;
import dev.ibex.samples.cli.FabricOptions;
import dev.ibex.samples.cli.SampleCommand;
import dev.ibex.samples.cli.SampleRun;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.core.RSocketConnector;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The key-value client: connects to a {@link KvServer} over RSocket over Ibex and runs the operations given, in
 * order, printing one line each: {@code put KEY VALUE} ({@code put color = blue (was red)}), {@code get KEY}
 * ({@code get color = blue}, or {@code get color: no such key: color}), {@code watch KEY N} (waits for N values of
 * KEY, printing {@code watch color: blue} for each). Exit 0 when every operation answered, 1 otherwise.
 */
@Command(name = "kv-client", sortOptions = false, separator = " ",
        description = "Key-value client over RSocket over RDMA: put KEY VALUE | get KEY | watch KEY N ...")
public final class KvClient extends SampleCommand {
    @Option(names = "--host", paramLabel = "ADDR", required = true, description = "the server's address")
    String host;
    @Option(names = "--port", paramLabel = "PORT", defaultValue = "7878", description = "RDMA CM port (default 7878)")
    int port;
    @Option(names = "--local", paramLabel = "ADDR", description = "connect from this address (an RDMA device's)")
    String local;
    @Parameters(paramLabel = "OP", description = "put KEY VALUE | get KEY | watch KEY N (in order)")
    List<String> ops = new ArrayList<>();
    @Mixin FabricOptions fabric = new FabricOptions();

    public KvClient(PrintStream out, PrintStream err) {
        super(out, err);
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new KvClient(System.out, System.err)).execute(args));
    }

    @Override
    public Integer call() {
        Duration bound = fabric.timeout() != null ? fabric.timeout() : Duration.ofSeconds(60);
        try (SampleRun run = begin(new SampleRun(fabric.open(8192), out, err))) {
            RdmaClient client = RdmaClient.create().runOn(run.group()).host(host).port(port);
            if (local != null) {
                client = client.localHost(local);
            }
            RSocket rsocket = RSocketConnector.create().connect(RdmaClientTransport.create(client)
                    .connectTimeout(bound)).block(bound);
            try {
                return execute(rsocket, bound);
            } finally {
                rsocket.dispose();
                rsocket.onClose().onErrorResume(e -> reactor.core.publisher.Mono.empty()).block(bound);
            }
        } catch (RuntimeException e) {
            err.println("kv-client: " + reactor.core.Exceptions.unwrap(e));
            return 1;
        }
    }

    private int execute(RSocket rsocket, Duration bound) {
        int status = 0;
        for (int i = 0; i < ops.size(); i++) {
            String op = ops.get(i);
            switch (op) {
                case "put" -> {
                    String key = arg(++i);
                    String value = arg(++i);
                    String was = text(rsocket.requestResponse(KvProtocol.put(key, value)).block(bound));
                    out.println("put " + key + " = " + value + (was.isEmpty() ? " (new)" : " (was " + was + ")"));
                }
                case "get" -> {
                    String key = arg(++i);
                    try {
                        out.println("get " + key + " = " + text(rsocket.requestResponse(KvProtocol.get(key))
                                .block(bound)));
                    } catch (RuntimeException e) {
                        out.println("get " + key + ": " + reactor.core.Exceptions.unwrap(e).getMessage());
                        status = 1;
                    }
                }
                case "watch" -> {
                    String key = arg(++i);
                    int n = Integer.parseInt(arg(++i));
                    out.println("watching " + key + " for " + n + " values");
                    out.flush();
                    rsocket.requestStream(KvProtocol.watch(key)).take(n)
                            .doOnNext(p -> {
                                out.println("watch " + key + ": " + text(p));
                                out.flush();
                            })
                            .then().block(bound);
                }
                default -> throw new CommandLine.ParameterException(new CommandLine(this),
                        "unknown operation \"" + op + "\": put KEY VALUE | get KEY | watch KEY N");
            }
            out.flush();
        }
        return status;
    }

    private String arg(int i) {
        if (i >= ops.size()) {
            throw new CommandLine.ParameterException(new CommandLine(this), "missing argument after "
                    + ops.get(ops.size() - 1));
        }
        return ops.get(i);
    }

    private static String text(Payload p) {
        try {
            return p.getDataUtf8();
        } finally {
            p.release();
        }
    }
}
