package dev.ibex.cm.endpoint;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * An endpoint's state machine as data: for every state and every {@link Input} the next state and the action to
 * perform. Built once per endpoint kind; {@link Builder#build()} refuses a table with an empty cell.
 *
 * @param <S> the states
 * @param <A> the actions
 */
final class StateTable<S extends Enum<S>, A extends Enum<A>> {

    /** One cell. */
    record Transition<S, A>(S next, A action) {}

    private final String name;
    private final Class<S> states;
    private final Object[][] cells;
    private final Set<S> terminal;

    private StateTable(String name, Class<S> states, Object[][] cells, Set<S> terminal) {
        this.name = name;
        this.states = states;
        this.cells = cells;
        this.terminal = terminal;
    }

    @SuppressWarnings("unchecked")
    Transition<S, A> at(S state, Input input) {
        return (Transition<S, A>) cells[state.ordinal()][input.ordinal()];
    }

    String name() {
        return name;
    }

    List<S> states() {
        return List.of(states.getEnumConstants());
    }

    /** States with no way out (every input leaves the endpoint there). */
    Set<S> terminal() {
        return terminal;
    }

    /** Number of cells (states × inputs). */
    int size() {
        return cells.length * Input.values().length;
    }

    static <S extends Enum<S>, A extends Enum<A>> Builder<S, A> builder(String name, Class<S> states) {
        return new Builder<>(name, states);
    }

    static final class Builder<S extends Enum<S>, A extends Enum<A>> {
        private final String name;
        private final Class<S> states;
        private final Object[][] cells;
        private final Set<S> terminal;

        private Builder(String name, Class<S> states) {
            this.name = name;
            this.states = states;
            this.cells = new Object[states.getEnumConstants().length][Input.values().length];
            this.terminal = EnumSet.noneOf(states);
        }

        /** {@code state} × {@code input} → {@code next}, performing {@code action}. */
        Builder<S, A> on(S state, Input input, S next, A action) {
            cells[state.ordinal()][input.ordinal()] = new Transition<>(next, action);
            return this;
        }

        Builder<S, A> on(S state, Set<Input> inputs, S next, A action) {
            for (Input i : inputs) {
                on(state, i, next, action);
            }
            return this;
        }

        /** Fills every cell of {@code state} not set yet. */
        Builder<S, A> otherwise(S state, S next, A action) {
            for (Input i : Input.values()) {
                if (cells[state.ordinal()][i.ordinal()] == null) {
                    on(state, i, next, action);
                }
            }
            return this;
        }

        /** Marks a state terminal: the test checks that nothing leaves it. */
        Builder<S, A> terminal(S state) {
            terminal.add(state);
            return this;
        }

        StateTable<S, A> build() {
            List<String> missing = new ArrayList<>();
            S[] all = states.getEnumConstants();
            for (S s : all) {
                for (Input i : Input.values()) {
                    if (cells[s.ordinal()][i.ordinal()] == null) {
                        missing.add(s + " × " + i);
                    }
                }
            }
            if (!missing.isEmpty()) {
                throw new IllegalStateException(name + " state table has empty cells: " + missing);
            }
            return new StateTable<>(name, states, cells, terminal);
        }
    }
}
