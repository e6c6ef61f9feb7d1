package dev.ibex.cm.reactive;

import dev.ibex.cm.loop.EventLoop;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import reactor.blockhound.BlockHound;
import reactor.blockhound.integration.BlockHoundIntegration;

/**
 * Installs BlockHound once per test JVM, before any test class of this module runs (auto-detected JUnit
 * extension): event loop threads are non-blocking. Allowed: the pollers' waits — the fake poller's {@code await},
 * and the soft provider's {@code SoftPoller.poll}, which parks inside the method that also scans its sources, so
 * blocking is disallowed again below it where the loop dispatches CM events ({@code CmDispatch.dispatch}) and async
 * events ({@code EventLoopGroup.route}) to endpoint callbacks; completions are delivered outside the poll. Also
 * allowed: logback's console writes. The soft provider's own I/O threads are not loop threads.
 *
 * <p>The soft provider plays the kernel and the NIC: its verbs and CM calls take short internal locks (the CM
 * lock, the transport timer queue, a QP's serial task during control operations) and a post transmits on the
 * posting thread through {@code DatagramChannel.send}, whose internal write lock may be contended by the
 * provider's receive threads sending ACKs (the provider's {@code TransmitLock} in front of it spins that
 * contention off) — as the kernel's syscalls and the doorbell take mutexes that
 * BlockHound never sees under rdma-core. Those bounded waits are allowed by name. Also allowed, and reported
 * as a provider finding: {@code IbCm.randomPsn} draws PSNs from a {@code SecureRandom} ({@code NativePRNG} reads
 * {@code /dev/urandom}) on the thread that creates a CM id — a loop.
 */
public final class ReactiveBlockHound implements BeforeAllCallback, BlockHoundIntegration {
    private static boolean installed;

    /** Installs with this integration plus those on the class path (Reactor's own allowances among them). */
    public static synchronized void install() {
        if (installed) {
            return;
        }
        BlockHound.install(new ReactiveBlockHound());
        installed = true;
    }

    @Override
    public void applyTo(BlockHound.Builder builder) {
        builder.nonBlockingThreadPredicate(p -> p.or(EventLoop::isLoopThread))
                .allowBlockingCallsInside("dev.ibex.cm.fake.FakePoller", "await")
                .allowBlockingCallsInside("dev.ibex.cm.loop.PollFailures", "brokenPollerWait")
                .allowBlockingCallsInside("dev.ibex.softroce.transport.SoftPoller", "poll")
                .disallowBlockingCallsInside("dev.ibex.cm.loop.CmDispatch", "dispatch")
                .disallowBlockingCallsInside("dev.ibex.cm.loop.EventLoopGroup", "route")
                .allowBlockingCallsInside("dev.ibex.softroce.cm.IbCm", "randomPsn")
                .allowBlockingCallsInside("dev.ibex.softroce.cm.IbCm", "locked")
                .allowBlockingCallsInside("dev.ibex.softroce.cm.RdmaCm", "locked")
                .allowBlockingCallsInside("dev.ibex.softroce.transport.Timers", "enqueue")
                .allowBlockingCallsInside("dev.ibex.softroce.transport.SerialTask", "runExclusive")
                // the soft NIC's CQ producers (a receive thread, a loop completing its own post) CAS the ring's tail
                // and spin (onSpinWait) while another wins: a bounded wait
                .allowBlockingCallsInside("dev.ibex.softroce.transport.SoftCompletionQueue", "complete")
                // the JDK's channel write lock, whichever provider class transmits, and the soft NIC's own
                // allocation-free lock in front of it (spins a few microseconds while a receive thread sends an ACK)
                .allowBlockingCallsInside("sun.nio.ch.DatagramChannelImpl", "send")
                .allowBlockingCallsInside("dev.ibex.softroce.net.TransmitLock", "lock")
                .allowBlockingCallsInside("ch.qos.logback.core.OutputStreamAppender", "writeBytes");
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        install();
    }
}
