package dev.ibex.verbs.provider;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** What inline data the rdma-core provider lets through to memcpy: only registered bytes (no device needed). */
class RegisteredRangesTest {
    @Test
    void onlyAddressesInsideARegisteredRangePass() {
        RegisteredRanges r = new RegisteredRanges();
        assertThat(r.contains(0x1000, 8)).as("nothing registered").isFalse();
        r.add(0x1000, 0x1000);
        r.add(0x8000, 0x100);
        assertThat(r.contains(0x1000, 0x1000)).isTrue();
        assertThat(r.contains(0x1FF8, 8)).isTrue();
        assertThat(r.contains(0x1FF9, 8)).as("runs past the end").isFalse();
        assertThat(r.contains(0xFFF, 2)).as("starts before").isFalse();
        assertThat(r.contains(0x2000, 1)).as("between ranges").isFalse();
        assertThat(r.contains(0x80F0, 0x10)).isTrue();
        assertThat(r.contains(0, 8)).as("NULL").isFalse();
        assertThat(r.contains(-8, 16)).as("wraps around").isFalse();
        r.remove(0x1000, 0x1000);
        assertThat(r.contains(0x1000, 8)).as("deregistered").isFalse();
        assertThat(r.contains(0x8000, 8)).isTrue();
    }

    @Test
    void overlappingRegistrationsOfTheSameBytesEachCount() {
        RegisteredRanges r = new RegisteredRanges();
        r.add(0x1000, 0x4000);
        r.add(0x2000, 0x10);
        assertThat(r.contains(0x3000, 0x100)).as("inside the big one, after the small one").isTrue();
        r.remove(0x1000, 0x4000);
        assertThat(r.contains(0x3000, 0x100)).isFalse();
        assertThat(r.contains(0x2000, 0x10)).isTrue();
    }
}
