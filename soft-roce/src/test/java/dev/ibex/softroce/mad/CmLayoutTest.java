package dev.ibex.softroce.mad;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.softroce.wire.Gid;
import java.lang.foreign.MemorySegment;
import java.lang.reflect.Constructor;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every field of every CM message against the layout tables of wire.md §2.3, independently of the codec:
 * a message with one field at its maximum (all others zero) must set exactly the bits the table gives
 * that field and nothing else, and decode back to the same value. Then all fields together, at random
 * values, must round-trip.
 */
class CmLayoutTest {
    private static final int AT = 5; // encode at an odd offset of a larger segment

    /** One field: its record component, a value at the field's maximum, and the bits it must occupy. */
    record Field(Class<? extends CmMessage> type, String component, Object value, Map<Integer, Integer> span,
            boolean exact, String sub, Object subMax) {
        Field(Class<? extends CmMessage> type, String component, Object value, Map<Integer, Integer> span,
                boolean exact) {
            this(type, component, value, span, exact, null, null);
        }

        @Override
        public String toString() {
            return type.getSimpleName() + "." + component + (sub == null ? "" : "." + sub);
        }
    }

    static Stream<Field> fields() {
        List<Field> f = new ArrayList<>();
        // REQ (table 106)
        f.add(num(CmReq.class, "localCommId", bytes(0, 4)));
        f.add(num(CmReq.class, "vendorId", bytes(5, 3)));
        f.add(num(CmReq.class, "serviceId", bytes(8, 8)));
        f.add(num(CmReq.class, "localCaGuid", bytes(16, 8)));
        f.add(num(CmReq.class, "localQKey", bytes(28, 4)));
        f.add(num(CmReq.class, "localQpn", bytes(32, 3)));
        f.add(num(CmReq.class, "responderResources", bytes(35, 1)));
        f.add(num(CmReq.class, "localEecn", bytes(36, 3)));
        f.add(num(CmReq.class, "initiatorDepth", bytes(39, 1)));
        f.add(num(CmReq.class, "remoteEecn", bytes(40, 3)));
        f.add(num(CmReq.class, "remoteCmResponseTimeout", bits(43, 0xF8)));
        f.add(num(CmReq.class, "transportServiceType", bits(43, 0x06)));
        f.add(num(CmReq.class, "endToEndFlowControl", bits(43, 0x01)));
        f.add(num(CmReq.class, "startingPsn", bytes(44, 3)));
        f.add(num(CmReq.class, "localCmResponseTimeout", bits(47, 0xF8)));
        f.add(num(CmReq.class, "retryCount", bits(47, 0x07)));
        f.add(num(CmReq.class, "pKey", bytes(48, 2)));
        f.add(num(CmReq.class, "pathMtu", bits(50, 0xF0)));
        f.add(num(CmReq.class, "rdcExists", bits(50, 0x08)));
        f.add(num(CmReq.class, "rnrRetryCount", bits(50, 0x07)));
        f.add(num(CmReq.class, "maxCmRetries", bits(51, 0xF0)));
        f.add(num(CmReq.class, "srq", bits(51, 0x08)));
        f.add(num(CmReq.class, "extendedTransportType", bits(51, 0x07)));
        paths(f, CmReq.class, "primaryPath", 52, false);
        paths(f, CmReq.class, "alternatePath", 96, false);
        f.add(num(CmReq.class, "sapSupported", bits(139, 0x04)));
        f.add(num(CmReq.class, "privateData", bytes(140, 92)));
        // MRA (table 107)
        f.add(num(CmMra.class, "localCommId", bytes(0, 4)));
        f.add(num(CmMra.class, "remoteCommId", bytes(4, 4)));
        f.add(new Field(CmMra.class, "messageMraed", CmMessageKind.OTHER, bits(8, 0xC0), false));
        f.add(num(CmMra.class, "serviceTimeout", bits(9, 0xF8)));
        f.add(num(CmMra.class, "privateData", bytes(10, 222)));
        // REJ (table 108)
        f.add(num(CmRej.class, "localCommId", bytes(0, 4)));
        f.add(num(CmRej.class, "remoteCommId", bytes(4, 4)));
        f.add(new Field(CmRej.class, "messageRejected", CmMessageKind.OTHER, bits(8, 0xC0), false));
        f.add(new Field(CmRej.class, "rejectInfo", ones(72), merge(bits(9, 0xFE), bytes(12, 72)), false));
        f.add(new Field(CmRej.class, "reason", CmRejectReason.VENDOR_OPTION_NOT_SUPPORTED, bytes(10, 2), false));
        f.add(num(CmRej.class, "privateData", bytes(84, 148)));
        // REP (table 110)
        f.add(num(CmRep.class, "localCommId", bytes(0, 4)));
        f.add(num(CmRep.class, "remoteCommId", bytes(4, 4)));
        f.add(num(CmRep.class, "localQKey", bytes(8, 4)));
        f.add(num(CmRep.class, "localQpn", bytes(12, 3)));
        f.add(num(CmRep.class, "vendorId", merge(bytes(15, 1), bytes(19, 1), bytes(23, 1))));
        f.add(num(CmRep.class, "localEecn", bytes(16, 3)));
        f.add(num(CmRep.class, "startingPsn", bytes(20, 3)));
        f.add(num(CmRep.class, "responderResources", bytes(24, 1)));
        f.add(num(CmRep.class, "initiatorDepth", bytes(25, 1)));
        f.add(num(CmRep.class, "targetAckDelay", bits(26, 0xF8)));
        f.add(num(CmRep.class, "failoverAccepted", bits(26, 0x06)));
        f.add(num(CmRep.class, "endToEndFlowControl", bits(26, 0x01)));
        f.add(num(CmRep.class, "rnrRetryCount", bits(27, 0xE0)));
        f.add(num(CmRep.class, "srq", bits(27, 0x10)));
        f.add(num(CmRep.class, "localCaGuid", bytes(28, 8)));
        f.add(num(CmRep.class, "privateData", bytes(36, 196)));
        // RTU, DREQ, DREP (tables 111–113)
        f.add(num(CmRtu.class, "localCommId", bytes(0, 4)));
        f.add(num(CmRtu.class, "remoteCommId", bytes(4, 4)));
        f.add(num(CmRtu.class, "privateData", bytes(8, 224)));
        f.add(num(CmDreq.class, "localCommId", bytes(0, 4)));
        f.add(num(CmDreq.class, "remoteCommId", bytes(4, 4)));
        f.add(num(CmDreq.class, "remoteQpn", bytes(8, 3)));
        f.add(num(CmDreq.class, "privateData", bytes(12, 220)));
        f.add(num(CmDrep.class, "localCommId", bytes(0, 4)));
        f.add(num(CmDrep.class, "remoteCommId", bytes(4, 4)));
        f.add(num(CmDrep.class, "privateData", bytes(8, 224)));
        // LAP (table 115)
        f.add(num(CmLap.class, "localCommId", bytes(0, 4)));
        f.add(num(CmLap.class, "remoteCommId", bytes(4, 4)));
        f.add(num(CmLap.class, "remoteQpn", bytes(12, 3)));
        f.add(num(CmLap.class, "remoteCmResponseTimeout", bits(15, 0xF8)));
        paths(f, CmLap.class, "alternatePath", 20, true);
        f.add(num(CmLap.class, "privateData", bytes(64, 168)));
        // APR (table 116)
        f.add(num(CmApr.class, "localCommId", bytes(0, 4)));
        f.add(num(CmApr.class, "remoteCommId", bytes(4, 4)));
        f.add(new Field(CmApr.class, "additionalInfo", ones(72), merge(bytes(8, 1), bytes(12, 72)), false));
        f.add(new Field(CmApr.class, "status", ApStatus.INVALID_SL, bytes(9, 1), false));
        f.add(num(CmApr.class, "privateData", bytes(84, 148)));
        // SIDR_REQ / SIDR_REP (tables 119, 120)
        f.add(num(CmSidrReq.class, "requestId", bytes(0, 4)));
        f.add(num(CmSidrReq.class, "pKey", bytes(4, 2)));
        f.add(num(CmSidrReq.class, "serviceId", bytes(8, 8)));
        f.add(num(CmSidrReq.class, "privateData", bytes(16, 216)));
        f.add(num(CmSidrRep.class, "requestId", bytes(0, 4)));
        f.add(new Field(CmSidrRep.class, "status", SidrStatus.UNSUPPORTED_VERSION, bytes(4, 1), false));
        f.add(new Field(CmSidrRep.class, "additionalInfo", ones(72), merge(bytes(5, 1), bytes(24, 72)), false));
        f.add(num(CmSidrRep.class, "vendorId", merge(bytes(6, 2), bytes(11, 1))));
        f.add(num(CmSidrRep.class, "qpn", bytes(8, 3)));
        f.add(num(CmSidrRep.class, "serviceId", bytes(12, 8)));
        f.add(num(CmSidrRep.class, "qKey", bytes(20, 4)));
        f.add(num(CmSidrRep.class, "privateData", bytes(96, 136)));
        return f.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fields")
    void fieldOccupiesExactlyItsBits(Field field) throws Exception {
        CmMessage base = build(field.type(), Map.of());
        CmMessage one = build(field.type(), Map.of(field.component(), field.value()));
        byte[] a = encode(base), b = encode(one);
        Map<Integer, Integer> changed = new TreeMap<>();
        for (int i = 0; i < CmMessage.DATA_SIZE; i++) {
            int x = (a[i] ^ b[i]) & 0xFF;
            if (x != 0) {
                changed.put(i, x);
            }
        }
        assertThat(changed).as("bits changed by %s", field).isNotEmpty();
        for (var e : changed.entrySet()) {
            int allowed = field.span().getOrDefault(e.getKey(), 0);
            assertThat(e.getValue() & ~allowed).as("%s touched byte %d outside its field", field, e.getKey()).isZero();
        }
        if (field.exact()) {
            assertThat(changed).as("%s at its maximum fills its field", field).isEqualTo(field.span());
        }
        CmMessage decoded = CmMessage.decode(one.attribute(), MemorySegment.ofArray(pad(b)), AT);
        assertThat(component(decoded, field.component())).isEqualTo(field.value());
    }

    @ParameterizedTest
    @MethodSource("messageTypes")
    void everyFieldAtRandomValuesRoundTrips(Class<? extends CmMessage> type) throws Exception {
        RandomGenerator rnd = RandomGeneratorFactory.of("L64X128MixRandom").create(type.getName().hashCode());
        List<Field> own = fields().filter(f -> f.type() == type).toList();
        for (int round = 0; round < 50; round++) {
            Map<String, Object> values = new java.util.HashMap<>();
            Map<String, CmPath> paths = new java.util.HashMap<>();
            for (Field f : own) {
                if (f.sub() != null) {
                    CmPath one = withPathField(CmPath.ABSENT, f.sub(), randomLike(f.subMax(), rnd));
                    paths.merge(f.component(), one, CmLayoutTest::merge);
                } else {
                    values.put(f.component(), randomLike(f.value(), rnd));
                }
            }
            values.putAll(paths);
            CmMessage m = build(type, values);
            CmMessage back = CmMessage.decode(m.attribute(), MemorySegment.ofArray(pad(encode(m))), AT);
            assertThat(back).isEqualTo(m);
        }
    }

    static Stream<Class<? extends CmMessage>> messageTypes() {
        return Stream.of(CmReq.class, CmMra.class, CmRej.class, CmRep.class, CmRtu.class, CmDreq.class,
                CmDrep.class, CmSidrReq.class, CmSidrRep.class, CmLap.class, CmApr.class);
    }

    // ---- path fields: the same CmPath record sits in REQ (twice) and LAP with different layouts -----

    private static void paths(List<Field> f, Class<? extends CmMessage> type, String component, int base,
            boolean lap) {
        f.add(pathNum(type, component, "localLid", bytes(base, 2)));
        f.add(pathNum(type, component, "remoteLid", bytes(base + 2, 2)));
        f.add(pathNum(type, component, "localGid", bytes(base + 4, 16)));
        f.add(pathNum(type, component, "remoteGid", bytes(base + 20, 16)));
        f.add(pathNum(type, component, "flowLabel", merge(bytes(base + 36, 2), bits(base + 38, 0xF0))));
        if (lap) {
            f.add(pathNum(type, component, "trafficClass", bytes(base + 39, 1)));
            f.add(pathNum(type, component, "hopLimit", bytes(base + 40, 1)));
            f.add(pathNum(type, component, "packetRate", bits(base + 41, 0x3F)));
        } else {
            f.add(pathNum(type, component, "packetRate", bits(base + 39, 0x3F)));
            f.add(pathNum(type, component, "trafficClass", bytes(base + 40, 1)));
            f.add(pathNum(type, component, "hopLimit", bytes(base + 41, 1)));
        }
        f.add(pathNum(type, component, "sl", bits(base + 42, 0xF0)));
        f.add(pathNum(type, component, "subnetLocal", bits(base + 42, 0x08)));
        f.add(pathNum(type, component, "localAckTimeout", bits(base + 43, 0xF8)));
    }

    private static Field pathNum(Class<? extends CmMessage> type, String component, String sub,
            Map<Integer, Integer> span) {
        Object max = maxFor(recordType(CmPath.class, sub), span);
        return new Field(type, component, withPathField(CmPath.ABSENT, sub, max), span, true, sub, max);
    }

    private static CmPath withPathField(CmPath p, String sub, Object value) {
        try {
            RecordComponent[] rc = CmPath.class.getRecordComponents();
            Object[] args = new Object[rc.length];
            for (int i = 0; i < rc.length; i++) {
                args[i] = rc[i].getName().equals(sub) ? value : rc[i].getAccessor().invoke(p);
            }
            return canonical(CmPath.class).newInstance(args);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    private static CmPath merge(CmPath x, CmPath y) { // field-wise: take y's non-default values
        try {
            RecordComponent[] rc = CmPath.class.getRecordComponents();
            Object[] args = new Object[rc.length];
            for (int i = 0; i < rc.length; i++) {
                Object vx = rc[i].getAccessor().invoke(x), vy = rc[i].getAccessor().invoke(y);
                args[i] = vy.equals(rc[i].getAccessor().invoke(CmPath.ABSENT)) ? vx : vy;
            }
            return canonical(CmPath.class).newInstance(args);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    // ---- generic record plumbing ---------------------------------------------------------------------

    private static Field num(Class<? extends CmMessage> type, String component, Map<Integer, Integer> span) {
        return new Field(type, component, maxFor(recordType(type, component), span), span, true);
    }

    private static Class<?> recordType(Class<?> type, String component) {
        return Arrays.stream(type.getRecordComponents()).filter(c -> c.getName().equals(component)).findFirst()
                .orElseThrow(() -> new AssertionError(type + " has no " + component)).getType();
    }

    private static Object maxFor(Class<?> t, Map<Integer, Integer> span) {
        int width = span.values().stream().mapToInt(Integer::bitCount).sum();
        if (t == int.class) {
            return width == 32 ? -1 : (1 << width) - 1;
        } else if (t == long.class) {
            return -1L;
        } else if (t == boolean.class) {
            return true;
        } else if (t == Octets.class) {
            return ones(span.size());
        } else if (t == Gid.class) {
            return new Gid(-1L, -1L);
        }
        throw new AssertionError("no maximum for " + t);
    }

    /** A random value of the same kind and width as the maximum {@code v}. */
    private static Object randomLike(Object v, RandomGenerator rnd) {
        return switch (v) {
            case Integer i -> rnd.nextInt() & i;
            case Long l -> rnd.nextLong();
            case Boolean b -> rnd.nextBoolean();
            case Gid g -> new Gid(rnd.nextLong(), rnd.nextLong());
            case Octets o -> {
                byte[] b = new byte[o.length()];
                rnd.nextBytes(b);
                yield Octets.of(b);
            }
            case Enum<?> e -> {
                Object[] all = e.getDeclaringClass().getEnumConstants();
                yield all[rnd.nextInt(all.length)];
            }
            default -> throw new AssertionError(v.getClass());
        };
    }

    private static CmMessage build(Class<? extends CmMessage> type, Map<String, Object> values) {
        try {
            RecordComponent[] rc = type.getRecordComponents();
            Object[] args = new Object[rc.length];
            for (int i = 0; i < rc.length; i++) {
                String name = rc[i].getName();
                Object v = values.get(name);
                args[i] = v != null ? v : defaultOf(rc[i].getType());
            }
            return canonical(type).newInstance(args);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    private static Object defaultOf(Class<?> t) {
        if (t == int.class) {
            return 0;
        } else if (t == long.class) {
            return 0L;
        } else if (t == boolean.class) {
            return false;
        } else if (t == Octets.class) {
            return Octets.EMPTY;
        } else if (t == CmPath.class) {
            return CmPath.ABSENT;
        } else if (t.isEnum()) {
            return t.getEnumConstants()[0];
        }
        throw new AssertionError("no default for " + t);
    }

    @SuppressWarnings("unchecked")
    private static <T> Constructor<T> canonical(Class<T> type) throws NoSuchMethodException {
        Class<?>[] types = Arrays.stream(type.getRecordComponents()).map(RecordComponent::getType)
                .toArray(Class<?>[]::new);
        return type.getDeclaredConstructor(types);
    }

    private static Object component(Object record, String name) throws ReflectiveOperationException {
        return record.getClass().getMethod(name).invoke(record);
    }

    private static byte[] encode(CmMessage m) {
        byte[] out = new byte[AT + CmMessage.DATA_SIZE + 3];
        Arrays.fill(out, (byte) 0x5A); // encode must overwrite every byte of its 232
        m.encode(MemorySegment.ofArray(out), AT);
        return Arrays.copyOfRange(out, AT, AT + CmMessage.DATA_SIZE);
    }

    private static byte[] pad(byte[] data) {
        byte[] out = new byte[AT + data.length];
        System.arraycopy(data, 0, out, AT, data.length);
        return out;
    }

    private static Octets ones(int n) {
        byte[] b = new byte[n];
        Arrays.fill(b, (byte) 0xFF);
        return Octets.of(b);
    }

    private static Map<Integer, Integer> bytes(int from, int count) {
        Map<Integer, Integer> m = new TreeMap<>();
        for (int i = from; i < from + count; i++) {
            m.put(i, 0xFF);
        }
        return m;
    }

    private static Map<Integer, Integer> bits(int at, int mask) {
        return new TreeMap<>(Map.of(at, mask));
    }

    @SafeVarargs
    private static Map<Integer, Integer> merge(Map<Integer, Integer>... maps) {
        Map<Integer, Integer> m = new TreeMap<>();
        for (var x : maps) {
            x.forEach((k, v) -> m.merge(k, v, (p, q) -> p | q));
        }
        return m;
    }
}
