package dev.ibex.cm.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link PollerSeats}' table in a file: what one mapping writes another sees (each JVM maps the file on its own), a
 * seat whose process is gone is taken over, and a file that is not this user's alone is not used.
 */
class PollerSeatsTest {
    @TempDir
    Path dir;

    @Test
    void aSeatIdleInOneMappingIsSeenFromAnotherAsTheyWouldBeInTwoProcesses() {
        Path file = dir.resolve("seats");
        PollerSeats a = PollerSeats.open(file);
        PollerSeats b = PollerSeats.open(file);
        assertThat(a.shared()).as("a table in a file").isTrue();
        assertThat(b.shared()).isTrue();
        int sa = a.take();
        int sb = b.take();
        assertThat(sa).isNotNegative();
        assertThat(sb).as("b takes another seat than a: the file holds a's").isNotNegative().isNotEqualTo(sa);
        long now = System.nanoTime();
        a.idleOn(sa, 3, now);
        assertThat(b.sharer(sb, 3, now, 1_000_000)).as("b sees a's loop idle on CPU 3").isEqualTo(sa);
        assertThat(b.sharer(sb, 2, now, 1_000_000)).as("not on another CPU").isEqualTo(-1);
        assertThat(a.sharer(sa, 3, now, 1_000_000)).as("a does not see itself").isEqualTo(-1);
        assertThat(b.sharer(sb, 3, now + 2_000_000, 1_000_000)).as("not once it is older than the window")
                .isEqualTo(-1);
        a.leave(sa);
        assertThat(b.sharer(sb, 3, now, 1_000_000)).as("a freed seat is on no CPU").isEqualTo(-1);
        b.leave(sb);
    }

    @Test
    void aSeatWhoseProcessIsGoneIsTakenOver() throws Exception {
        Path file = dir.resolve("seats");
        PollerSeats.open(file); // makes the file
        Process p = new ProcessBuilder("true").start();
        p.waitFor();
        long deadPid = p.pid();
        assumeTrue(!Files.exists(Path.of("/proc/" + deadPid)), "the finished process's pid was taken again");
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ByteBuffer seat0 = ByteBuffer.allocate(8).order(ByteOrder.nativeOrder());
            seat0.putLong(0, PollerSeats.TAKEN | deadPid << 20 | 4).clear();
            ch.write(seat0, 64);
        }
        PollerSeats t = PollerSeats.open(file);
        assertThat(t.take()).as("seat 0, held by a process that is gone").isZero();
    }

    @Test
    void aFileOthersMayWriteIsNotUsed() throws Exception {
        Path file = dir.resolve("seats");
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-rw-rw-")));
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-rw-rw-"));
        assertThat(PollerSeats.open(file).shared()).as("a table of this JVM's own instead").isFalse();
        assertThat(Files.size(file)).as("the file was left as it was").isZero();
    }

    @Test
    void aLinkIsNotFollowed() throws Exception {
        Path target = dir.resolve("target");
        Path link = Files.createSymbolicLink(dir.resolve("seats"), target);
        assertThat(PollerSeats.open(link).shared()).isFalse();
        assertThat(Files.exists(target)).as("nothing made where the link points").isFalse();
    }

    @Test
    void seatsAreBoundedAndReusedOnceFreed() {
        PollerSeats t = PollerSeats.local();
        java.util.List<Integer> taken = new java.util.ArrayList<>();
        for (int s; (s = t.take()) >= 0; ) {
            taken.add(s);
        }
        assertThat(taken).hasSize(PollerSeats.SEATS).doesNotHaveDuplicates();
        int freed = taken.get(5);
        t.leave(freed);
        assertThat(t.take()).as("the freed seat, the only one").isEqualTo(freed);
    }

    @Test
    void aTableOfThisJvmOnlyWorksAlike() {
        PollerSeats t = PollerSeats.local();
        assertThat(t.shared()).isFalse();
        int x = t.take();
        int y = t.take();
        long now = System.nanoTime();
        t.idleOn(x, 0, now);
        assertThat(t.sharer(y, 0, now, 1_000_000)).isEqualTo(x);
        t.leave(x);
        t.leave(y);
    }
}
