package dev.ibex.it.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The consumer's proof: built from the BOM's versions alone, the first program echoes. */
class EchoTest {

    @Test
    void theFirstProgramEchoes() {
        assertEquals(List.of("one", "two", "three"), Echo.echo());
    }
}
