package dev.ibex.cm.endpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/** Structural checks every endpoint table must pass: complete, terminal states closed, no way to hang. */
class StateTablesTest {

    static Stream<StateTable<?, ?>> tables() {
        return Stream.of(ConnectionTable.TABLE, ListenerTable.TABLE, RouteLookup.TABLE, DatagramTable.TABLE,
                MembershipTable.TABLE, ResolutionTable.TABLE);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("tables")
    <S extends Enum<S>, A extends Enum<A>> void everyCellIsDefined(StateTable<S, A> t) {
        int cells = 0;
        for (S s : t.states()) {
            for (Input i : Input.values()) {
                assertThat(t.at(s, i)).as("%s: %s × %s", t.name(), s, i).isNotNull();
                cells++;
            }
        }
        assertThat(t.size()).isEqualTo(cells).isEqualTo(t.states().size() * Input.values().length);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("tables")
    <S extends Enum<S>, A extends Enum<A>> void terminalStatesNeverLeave(StateTable<S, A> t) {
        assertThat(t.terminal()).isNotEmpty();
        for (S s : t.terminal()) {
            for (Input i : Input.values()) {
                assertThat(t.at(s, i).next()).as("%s: %s × %s", t.name(), s, i).isEqualTo(s);
            }
        }
    }

    /** From any state, close (then, if it waits for something, its deadline) ends in a terminal state. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("tables")
    <S extends Enum<S>, A extends Enum<A>> void closeAlwaysEndsWithinItsDeadline(StateTable<S, A> t) {
        for (S s : t.states()) {
            S after = t.at(s, Input.CLOSE).next();
            if (!t.terminal().contains(after)) {
                after = t.at(after, Input.TIMEOUT).next();
            }
            assertThat(t.terminal()).as("%s: close from %s", t.name(), s).contains(after);
        }
    }

    /** A connect can fail but never hang: in a waiting state every CM error and the deadline are terminal. */
    @Test
    void attemptsEndOnEveryErrorEventAndOnTheirDeadline() {
        Set<Input> ends = EnumSet.copyOf(Input.CM_ERRORS);
        ends.add(Input.TIMEOUT);
        ends.add(Input.CLOSE);
        List<String> hanging = new ArrayList<>();
        for (ConnectionState s : ConnectionTable.ATTEMPTING) {
            for (Input i : ends) {
                if (ConnectionTable.TABLE.at(s, i).next() != ConnectionState.CLOSED) {
                    hanging.add(s + " × " + i);
                }
            }
        }
        for (ResolutionTable.State s : ResolutionTable.WAITING) {
            for (Input i : ends) {
                if (ResolutionTable.TABLE.at(s, i).next() != ResolutionTable.State.CLOSED) {
                    hanging.add("resolution " + s + " × " + i);
                }
            }
        }
        for (Input i : EnumSet.of(Input.MULTICAST_ERROR, Input.DEVICE_REMOVAL, Input.TIMEOUT, Input.CLOSE)) {
            if (MembershipTable.TABLE.at(MembershipState.JOINING, i).next() != MembershipState.LEFT) {
                hanging.add("membership JOINING × " + i);
            }
        }
        for (RouteLookup.State s : EnumSet.of(RouteLookup.State.ADDR_RESOLVING, RouteLookup.State.ROUTE_RESOLVING)) {
            for (Input i : ends) {
                if (RouteLookup.TABLE.at(s, i).next() != RouteLookup.State.CLOSED) {
                    hanging.add("lookup " + s + " × " + i);
                }
            }
        }
        assertThat(hanging).isEmpty();
    }

    @Test
    void aTableWithAnEmptyCellDoesNotBuild() {
        enum Two { A, B }
        enum Act { X }
        StateTable.Builder<Two, Act> b = StateTable.builder("broken", Two.class);
        b.otherwise(Two.A, Two.A, Act.X).on(Two.B, Input.CLOSE, Two.A, Act.X);
        assertThatThrownBy(b::build).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("B × ADDR_RESOLVED").hasMessageContaining("empty cells");
    }
}
