package dev.ibex.rsocket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.rsocket.test.LeaksTrackingByteBufAllocator;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link MessageFraming}: frames split into messages and joined again, exactly, and malformed input refused. */
class MessageFramingTest {
    static final int MESSAGE = 4096;

    final LeaksTrackingByteBufAllocator alloc = LeaksTrackingByteBufAllocator.instrument(ByteBufAllocator.DEFAULT);
    final Arena arena = Arena.ofConfined();
    final MessageFraming framing = new MessageFraming(MESSAGE);

    @AfterEach
    void noLeaks() {
        arena.close();
        alloc.assertHasNoLeaks();
    }

    static ByteBuf frame(ByteBufAllocator alloc, int length) {
        ByteBuf b = alloc.buffer(length);
        for (int i = 0; i < length; i++) {
            b.writeByte(i * 31 + 7);
        }
        return b;
    }

    /** What the sender posts for {@code frame}: each chunk copied into a "registered" segment, then released. */
    List<MemorySegment> messages(ByteBuf frame) {
        int n = framing.messagesFor(frame.readableBytes());
        if (n > 1) {
            frame.retain(n - 1);
        }
        List<MemorySegment> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            MessageFraming.Chunk c = framing.chunk(frame, i);
            assertThat(c.length()).isLessThanOrEqualTo(MESSAGE);
            MemorySegment m = arena.allocate(c.length());
            c.copyTo(m);
            c.release();
            out.add(m);
        }
        return out;
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 6, 100, MESSAGE - 4, MESSAGE - 3, MESSAGE - 2, MESSAGE, 2 * MESSAGE - 3, 2 * MESSAGE - 2,
            3 * MESSAGE, 470_000, 1 << 20})
    void aFrameOfAnySizeArrivesIntactInTheFewestMessages(int length) {
        ByteBuf sent = frame(alloc, length);
        ByteBuf copy = sent.copy();
        List<MemorySegment> msgs = messages(sent);
        assertThat(sent.refCnt()).as("every chunk released its reference").isZero();
        // 3 bytes of length, then the frame: as few messages as that takes, all full but the last
        assertThat(msgs).hasSize((length + MessageFraming.HEADER + MESSAGE - 1) / MESSAGE);
        for (int i = 0; i < msgs.size() - 1; i++) {
            assertThat(msgs.get(i).byteSize()).isEqualTo(MESSAGE);
        }
        MessageFraming.Assembler a = new MessageFraming.Assembler(alloc);
        ByteBuf got = null;
        for (int i = 0; i < msgs.size(); i++) {
            got = a.accept(msgs.get(i));
            assertThat(got == null).as("complete only after the last message (%d of %d)", i + 1, msgs.size())
                    .isEqualTo(i < msgs.size() - 1);
        }
        assertThat(a.inProgress()).isFalse();
        assertThat(got).isEqualTo(copy);
        got.release();
        copy.release();
    }

    @Test
    void aCompositeFrameIsCopiedFromEveryComponent() {
        CompositeByteBuf composite = Unpooled.compositeBuffer();
        composite.addComponent(true, frame(alloc, 9));
        composite.addComponent(true, frame(alloc, 5000));
        ByteBuf copy = composite.copy();
        List<MemorySegment> msgs = messages(composite);
        MessageFraming.Assembler a = new MessageFraming.Assembler(alloc);
        assertThat(a.accept(msgs.get(0))).isNull();
        ByteBuf got = a.accept(msgs.get(1));
        assertThat(got).isEqualTo(copy);
        got.release();
        copy.release();
    }

    @Test
    void aMessageThatCannotStartAFrameIsRefused() {
        MessageFraming.Assembler a = new MessageFraming.Assembler(alloc);
        assertThatThrownBy(() -> a.accept(segment(0, 0, 5))).isInstanceOf(FramingException.class)
                .hasMessageContaining("cannot start a frame");
        // announces 2 bytes, carries 4
        assertThatThrownBy(() -> a.accept(segment(0, 0, 2, 1, 2, 3, 4))).isInstanceOf(FramingException.class)
                .hasMessageContaining("announces a frame of 2");
        assertThat(a.inProgress()).isFalse();
    }

    @Test
    void aContinuationLongerThanTheRestOfTheFrameIsRefusedAndThePartialFrameReleased() {
        MessageFraming.Assembler a = new MessageFraming.Assembler(alloc);
        assertThat(a.accept(segment(0, 0, 6, 1, 2, 3))).isNull(); // 3 of 6 bytes
        assertThat(a.inProgress()).isTrue();
        assertThatThrownBy(() -> a.accept(segment(4, 5, 6, 7))).isInstanceOf(FramingException.class)
                .hasMessageContaining("3 bytes of the frame were still expected");
        assertThat(a.inProgress()).isFalse(); // and the leak check finds the partial frame released
    }

    @Test
    void aHalfAssembledFrameIsReleasedWhenTheConnectionEnds() {
        MessageFraming.Assembler a = new MessageFraming.Assembler(alloc);
        assertThat(a.accept(segment(0, 0, 9, 1))).isNull();
        a.release();
        assertThat(a.inProgress()).isFalse();
    }

    @Test
    void messagesMustHoldMoreThanTheHeader() {
        assertThatThrownBy(() -> new MessageFraming(3)).isInstanceOf(IllegalArgumentException.class);
        assertThat(new MessageFraming(4).messagesFor(3)).isEqualTo(2);
    }

    MemorySegment segment(int... bytes) {
        MemorySegment s = arena.allocate(Math.max(1, bytes.length)).asSlice(0, bytes.length);
        for (int i = 0; i < bytes.length; i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) bytes[i]);
        }
        return s;
    }
}
