package dev.ibex.pubsub;

import static dev.ibex.pubsub.PublisherState.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.pubsub.TopicEvent.Kind;
import org.junit.jupiter.api.Test;

class LivenessTableTest {

    @Test
    void everyCellIsDefinedAndOnlyAJoinWhileJoinedIsRefused() {
        for (PublisherState s : PublisherState.values()) {
            for (Observation o : Observation.values()) {
                LivenessTable.Step step = LivenessTable.at(s, o);
                assertThat(step).as(s + " x " + o).isNotNull();
                assertThat(step.refuse()).as(s + " x " + o).isEqualTo(s != AWAY && o == Observation.JOIN);
                if (o == Observation.LEAVE) {
                    assertThat(step.next()).isEqualTo(AWAY);
                }
                if (s == AWAY && o != Observation.JOIN) {
                    assertThat(step.next()).as("nothing is heard away").isEqualTo(AWAY);
                }
            }
        }
    }

    @Test
    void theLifeOfAPublisherAsASubscriberSeesIt() {
        assertStep(AWAY, Observation.JOIN, UNHEARD, Kind.JOINED);
        assertStep(UNHEARD, Observation.FIRST_FRAME, LIVE, Kind.HEARD);
        assertStep(LIVE, Observation.FRAME, LIVE, null);
        assertStep(LIVE, Observation.QUIET, SILENT, Kind.SILENT);
        assertStep(SILENT, Observation.QUIET, SILENT, null);
        assertStep(SILENT, Observation.FRAME, LIVE, Kind.RESUMED);
        assertStep(LIVE, Observation.NEW_EPOCH, LIVE, Kind.RESTARTED);
        assertStep(LIVE, Observation.CLOSE, CLOSED, Kind.CLOSED);
        assertStep(CLOSED, Observation.FRAME, CLOSED, null);
        assertStep(CLOSED, Observation.NEW_EPOCH, LIVE, Kind.RESTARTED);
        assertStep(LIVE, Observation.LEAVE, AWAY, Kind.LEFT);
        // a re-join that hears nothing says so
        assertStep(UNHEARD, Observation.QUIET, SILENT, Kind.SILENT);
        assertStep(SILENT, Observation.FIRST_FRAME, LIVE, Kind.HEARD); // heard at last: not a resumption
        assertStep(UNHEARD, Observation.NEW_EPOCH, LIVE, Kind.RESTARTED);
    }

    private static void assertStep(PublisherState from, Observation o, PublisherState to, Kind event) {
        LivenessTable.Step step = LivenessTable.at(from, o);
        assertThat(step.next()).as(from + " x " + o).isEqualTo(to);
        assertThat(step.event()).as(from + " x " + o).isEqualTo(event);
    }
}
