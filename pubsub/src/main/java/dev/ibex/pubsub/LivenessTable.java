package dev.ibex.pubsub;

import static dev.ibex.pubsub.PublisherState.*;

import java.util.EnumSet;

/**
 * The subscriber's view of its publisher as a table: {@link PublisherState} × {@link Observation} → next state and
 * the {@link TopicEvent.Kind} to emit ({@code null}: none). Building refuses an empty cell; {@code
 * LivenessTableTest} walks every one.
 */
final class LivenessTable {
    /** One cell. */
    record Step(PublisherState next, TopicEvent.Kind event, boolean refuse) {}

    private static final Step[][] CELLS = build();

    private LivenessTable() {}

    static Step at(PublisherState state, Observation in) {
        return CELLS[state.ordinal()][in.ordinal()];
    }

    private static Step[][] build() {
        Step[][] t = new Step[PublisherState.values().length][Observation.values().length];
        EnumSet<PublisherState> joined = EnumSet.complementOf(EnumSet.of(AWAY));
        // joining and leaving
        set(t, AWAY, Observation.JOIN, UNHEARD, TopicEvent.Kind.JOINED);
        for (PublisherState s : joined) {
            t[s.ordinal()][Observation.JOIN.ordinal()] = new Step(s, null, true); // already joined
            set(t, s, Observation.LEAVE, AWAY, TopicEvent.Kind.LEFT);
        }
        set(t, AWAY, Observation.LEAVE, AWAY, null);
        // away, nothing is heard: frames still queued on the loop when the group was left are ignored
        for (Observation o : EnumSet.of(Observation.FIRST_FRAME, Observation.FRAME, Observation.NEW_EPOCH,
                Observation.CLOSE, Observation.QUIET)) {
            set(t, AWAY, o, AWAY, null);
        }
        set(t, UNHEARD, Observation.FIRST_FRAME, LIVE, TopicEvent.Kind.HEARD);
        set(t, UNHEARD, Observation.FRAME, LIVE, TopicEvent.Kind.HEARD); // (not sent: the first frame is FIRST_FRAME)
        set(t, UNHEARD, Observation.NEW_EPOCH, LIVE, TopicEvent.Kind.RESTARTED); // while the subscriber was away
        set(t, UNHEARD, Observation.CLOSE, CLOSED, TopicEvent.Kind.CLOSED);
        set(t, UNHEARD, Observation.QUIET, SILENT, TopicEvent.Kind.SILENT); // nothing heard since joining

        set(t, LIVE, Observation.FIRST_FRAME, LIVE, null); // (not sent: LIVE was heard)
        set(t, LIVE, Observation.FRAME, LIVE, null);
        set(t, LIVE, Observation.NEW_EPOCH, LIVE, TopicEvent.Kind.RESTARTED);
        set(t, LIVE, Observation.CLOSE, CLOSED, TopicEvent.Kind.CLOSED);
        set(t, LIVE, Observation.QUIET, SILENT, TopicEvent.Kind.SILENT);

        set(t, SILENT, Observation.FIRST_FRAME, LIVE, TopicEvent.Kind.HEARD); // silent since joining, now heard
        set(t, SILENT, Observation.FRAME, LIVE, TopicEvent.Kind.RESUMED);
        set(t, SILENT, Observation.NEW_EPOCH, LIVE, TopicEvent.Kind.RESTARTED);
        set(t, SILENT, Observation.CLOSE, CLOSED, TopicEvent.Kind.CLOSED);
        set(t, SILENT, Observation.QUIET, SILENT, null);

        set(t, CLOSED, Observation.FIRST_FRAME, CLOSED, null); // (not sent: CLOSED was heard)
        set(t, CLOSED, Observation.FRAME, CLOSED, null); // a late frame of the closed epoch
        set(t, CLOSED, Observation.NEW_EPOCH, LIVE, TopicEvent.Kind.RESTARTED);
        set(t, CLOSED, Observation.CLOSE, CLOSED, null);
        set(t, CLOSED, Observation.QUIET, CLOSED, null);
        for (PublisherState s : PublisherState.values()) {
            for (Observation o : Observation.values()) {
                if (t[s.ordinal()][o.ordinal()] == null) {
                    throw new IllegalStateException("liveness table: no cell for " + s + " x " + o);
                }
            }
        }
        return t;
    }

    private static void set(Step[][] t, PublisherState s, Observation o, PublisherState next, TopicEvent.Kind e) {
        t[s.ordinal()][o.ordinal()] = new Step(next, e, false);
    }
}
