package dev.ibex.rsocket;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.loop.EventLoop;
import dev.ibex.cm.loop.EventLoopGroup;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;

/** {@link FrameSender}: every frame handed to it is sent or released exactly once, whatever the threads do. */
class FrameSenderTest {
    static EventLoopGroup group;
    static EventLoop loop;

    @BeforeAll
    static void open() {
        group = EventLoopGroup.open("soft-roce");
        loop = group.next();
    }

    @AfterAll
    static void close() {
        group.close();
    }

    /** Takes every message the sender emits, as the send operation would (a chunk is released once copied). */
    static final class Taker implements CoreSubscriber<Object> {
        final List<Object> taken = new CopyOnWriteArrayList<>();
        volatile boolean completed;

        @Override
        public void onSubscribe(Subscription s) {
            s.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(Object o) {
            taken.add(o);
            if (o instanceof MessageFraming.Chunk c) {
                c.release();
            }
        }

        @Override
        public void onError(Throwable t) {}

        @Override
        public void onComplete() {
            completed = true;
        }
    }

    // RSocket may dispose a connection from two threads at once (its requester and its responder), each sending a
    // final frame: the second must be released, not overwrite the first (which then nobody released).
    @Test
    void twoFinalFramesFromTwoThreadsAtOnceSendOneAndReleaseBoth() throws Exception {
        for (int round = 0; round < 300; round++) {
            FrameSender sender = new FrameSender(loop, new byte[] {1});
            Taker taker = new Taker();
            loop.submit(() -> {
                sender.subscribe(taker);
                sender.start(new MessageFraming(4096));
                return null;
            }).get(10, TimeUnit.SECONDS);
            ByteBuf a = Unpooled.buffer(18).writeZero(18);
            ByteBuf b = Unpooled.buffer(18).writeZero(18);
            CyclicBarrier together = new CyclicBarrier(2);
            Thread other = Thread.ofPlatform().start(() -> {
                await(together);
                sender.sendLast(b);
            });
            await(together);
            sender.sendLast(a);
            other.join(10_000);
            loop.submit(() -> null).get(10, TimeUnit.SECONDS); // the drains ran
            sender.close();
            loop.submit(() -> null).get(10, TimeUnit.SECONDS);

            assertThat(a.refCnt()).as("round %d: first final frame released", round).isZero();
            assertThat(b.refCnt()).as("round %d: second final frame released", round).isZero();
            assertThat(taker.taken).as("round %d: the hello, then one final frame", round).hasSize(2);
            assertThat(taker.completed).isTrue();
        }
    }

    @Test
    void aFinalFrameAfterCloseIsReleasedAndNotSent() throws Exception {
        FrameSender sender = new FrameSender(loop, new byte[] {1});
        Taker taker = new Taker();
        loop.submit(() -> {
            sender.subscribe(taker);
            sender.start(new MessageFraming(4096));
            return null;
        }).get(10, TimeUnit.SECONDS);
        sender.close();
        ByteBuf f = Unpooled.buffer(18).writeZero(18);
        sender.sendLast(f);
        loop.submit(() -> null).get(10, TimeUnit.SECONDS);
        assertThat(f.refCnt()).isZero();
        assertThat(taker.taken).hasSize(1); // the hello only
    }

    private static void await(CyclicBarrier b) {
        try {
            b.await(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
