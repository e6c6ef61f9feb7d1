package dev.ibex.softroce.cm;

import java.util.List;
import java.util.Objects;

/**
 * One cell of {@link IbCmTable}: what an input does in a state.
 *
 * @param outcome whether the input is applied, discarded or refused
 * @param next the state after the input (the current state unless {@link Outcome#APPLY})
 * @param actions the steps, in order
 * @param event the event reported to the consumer, or {@code null}
 */
public record IbCmTransition(Outcome outcome, IbCmState next, List<IbCmAction> actions, IbCmEventType event) {

    /** What becomes of an input. */
    public enum Outcome {
        APPLY,
        /** A message or timer that means nothing in this state: dropped silently. */
        DISCARD,
        /** A consumer call not allowed in this state: EINVAL, nothing changes. */
        INVALID,
        /** {@code ib_cm_notify(COMM_EST)} on an established id: EISCONN. */
        ALREADY_CONNECTED
    }

    public IbCmTransition {
        Objects.requireNonNull(outcome);
        Objects.requireNonNull(next);
        actions = List.copyOf(actions);
    }

    static IbCmTransition apply(IbCmState next, IbCmEventType event, IbCmAction... actions) {
        return new IbCmTransition(Outcome.APPLY, next, List.of(actions), event);
    }

    static IbCmTransition unchanged(IbCmState state, Outcome outcome) {
        return new IbCmTransition(outcome, state, List.of(), null);
    }

    @Override
    public String toString() {
        return switch (outcome) {
            case APPLY -> "-> " + next + (actions.isEmpty() ? "" : " " + actions) + (event == null ? "" : " !" + event);
            default -> outcome.name();
        };
    }
}
