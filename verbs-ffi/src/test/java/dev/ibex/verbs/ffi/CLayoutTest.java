package dev.ibex.verbs.ffi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ibex.cm.Errno;
import dev.ibex.cm.spi.DeviceAttributes;
import dev.ibex.cm.spi.PortAttributes;
import dev.ibex.cm.spi.RendezvousHeader;
import dev.ibex.cm.spi.SrqOpsBatch;
import dev.ibex.cm.spi.TagMatchingHeader;
import dev.ibex.cm.spi.TmCaps;
import dev.ibex.cm.spi.VerbsAbi;
import dev.ibex.cm.spi.WcFlags;
import dev.ibex.cm.spi.WcOpcode;
import dev.ibex.verbs.ffi.constant.IbvAccessFlags;
import dev.ibex.verbs.ffi.struct.IbvContext;
import dev.ibex.verbs.ffi.struct.Layouts;
import java.io.IOException;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.PaddingLayout;
import java.lang.foreign.StructLayout;
import java.lang.foreign.UnionLayout;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checks every Java struct layout and constant against the installed C headers: generates a C program
 * from the Java side (one line per struct, per named field and per constant), compiles it with gcc, runs
 * it and compares sizeof/_Alignof/offsetof/member sizes and values. Adding a struct class or a constant
 * adds it to the check automatically, so the two sides cannot drift silently.
 */
class CLayoutTest {
    private static final String STRUCT_PACKAGE = "dev.ibex.verbs.ffi.struct";
    private static final String CONSTANT_PACKAGE = "dev.ibex.verbs.ffi.constant";

    /** One thing the C program reports: key ("S|struct x", "F|struct x|a.b", "C|NAME") and Java's value. */
    private record Check(String key, String java) {
    }

    private static final List<Check> checks = new ArrayList<>();
    private static Map<String, String> fromC;
    private static int structs;
    private static int fields;
    private static int constants;
    private static int abiOffsets;

    @BeforeAll
    static void compileAndRun(@TempDir Path dir) throws Exception {
        Gcc.assumeToolchain();
        StringBuilder c = new StringBuilder("""
                #include <stdio.h>
                #include <stddef.h>
                #include <errno.h>
                #include <fcntl.h>
                #include <sys/epoll.h>
                #include <sys/eventfd.h>
                #include <sys/socket.h>
                #include <netinet/in.h>
                #include <infiniband/verbs.h>
                #include <infiniband/tm_types.h>
                #include <rdma/rdma_cma.h>
                int main(void) {
                """);
        for (Class<?> type : classesIn(STRUCT_PACKAGE)) {
            Field f = layoutField(type);
            if (f == null) {
                continue;
            }
            GroupLayout layout = (GroupLayout) f.get(null);
            String cType = (layout instanceof UnionLayout ? "union " : "struct ")
                    + layout.name().orElseThrow(() -> new AssertionError(type.getSimpleName() + ".LAYOUT has no name"));
            structs++;
            String key = "S|" + cType;
            checks.add(new Check(key, layout.byteSize() + "|" + layout.byteAlignment()));
            c.append("  printf(\"%s|%zu|%zu\\n\", \"").append(key).append("\", sizeof(").append(cType)
                    .append("), _Alignof(").append(cType).append("));\n");
            walk(layout, layout, "", 0, cType, c);
        }
        for (Class<?> type : classesIn(CONSTANT_PACKAGE)) {
            for (Field f : type.getFields()) {
                if (!Modifier.isStatic(f.getModifiers()) || !(f.getType() == int.class || f.getType() == long.class)) {
                    continue;
                }
                long value = f.getType() == int.class ? f.getInt(null) : f.getLong(null);
                constant(c, f.getName(), value, f.getType() == int.class);
            }
        }
        for (Errno e : Errno.values()) {
            if (e != Errno.EUNKNOWN) {
                constant(c, e.name(), e.number(), true);
            }
        }
        for (Field f : VerbsAbi.class.getFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == int.class) {
                abiOffsets++;
                String key = "V|VerbsAbi." + f.getName();
                checks.add(new Check(key, Integer.toString(f.getInt(null))));
                c.append("  printf(\"%s|%zu\\n\", \"").append(key).append("\", ").append(verbsAbiExpression(f.getName()))
                        .append(");\n");
            }
        }
        // cm-core SPI constants that mirror verbs.h values (a wrong CAP_AUTO_PATH_MIG bit once went unnoticed)
        spiConstant(c, "DeviceAttributes.CAP_AUTO_PATH_MIG", DeviceAttributes.CAP_AUTO_PATH_MIG,
                "IBV_DEVICE_AUTO_PATH_MIG");
        spiConstant(c, "DeviceAttributes.CAP_SRQ_RESIZE", DeviceAttributes.CAP_SRQ_RESIZE, "IBV_DEVICE_SRQ_RESIZE");
        spiConstant(c, "DeviceAttributes.CAP_PORT_ACTIVE_EVENT", DeviceAttributes.CAP_PORT_ACTIVE_EVENT,
                "IBV_DEVICE_PORT_ACTIVE_EVENT");
        spiConstant(c, "DeviceAttributes.CAP_MEM_WINDOW", DeviceAttributes.CAP_MEM_WINDOW, "IBV_DEVICE_MEM_WINDOW");
        spiConstant(c, "DeviceAttributes.CAP_MEM_WINDOW_TYPE_2A", DeviceAttributes.CAP_MEM_WINDOW_TYPE_2A,
                "IBV_DEVICE_MEM_WINDOW_TYPE_2A");
        spiConstant(c, "DeviceAttributes.CAP_MEM_WINDOW_TYPE_2B", DeviceAttributes.CAP_MEM_WINDOW_TYPE_2B,
                "IBV_DEVICE_MEM_WINDOW_TYPE_2B");
        spiConstant(c, "MemoryWindow.Type.TYPE_1", dev.ibex.cm.spi.MemoryWindow.Type.TYPE_1.code(), "IBV_MW_TYPE_1");
        spiConstant(c, "MemoryWindow.Type.TYPE_2", dev.ibex.cm.spi.MemoryWindow.Type.TYPE_2.code(), "IBV_MW_TYPE_2");
        spiConstant(c, "Access.MW_BIND", dev.ibex.cm.spi.Access.MW_BIND.bit(), "IBV_ACCESS_MW_BIND");
        spiConstant(c, "WrOpcode.BIND_MW", dev.ibex.cm.spi.WrOpcode.BIND_MW, "IBV_WR_BIND_MW");
        spiConstant(c, "WrOpcode.LOCAL_INV", dev.ibex.cm.spi.WrOpcode.LOCAL_INV, "IBV_WR_LOCAL_INV");
        spiConstant(c, "WrOpcode.SEND_WITH_INV", dev.ibex.cm.spi.WrOpcode.SEND_WITH_INV, "IBV_WR_SEND_WITH_INV");
        spiConstant(c, "WcOpcode.BIND_MW", dev.ibex.cm.spi.WcOpcode.BIND_MW, "IBV_WC_BIND_MW");
        spiConstant(c, "WcOpcode.LOCAL_INV", dev.ibex.cm.spi.WcOpcode.LOCAL_INV, "IBV_WC_LOCAL_INV");
        spiConstant(c, "WcStatus.MW_BIND_ERR", dev.ibex.cm.spi.WcStatus.MW_BIND_ERR.code(), "IBV_WC_MW_BIND_ERR");
        // tag matching: ibv_tmh / ibv_rvh (tm_types.h), completion codes, list operations, tm_caps flags
        spiConstant(c, "TagMatchingHeader.SIZE", TagMatchingHeader.SIZE, "sizeof(struct ibv_tmh)");
        spiConstant(c, "TagMatchingHeader.OPCODE_OFFSET", TagMatchingHeader.OPCODE_OFFSET,
                "offsetof(struct ibv_tmh, opcode)");
        spiConstant(c, "TagMatchingHeader.APP_CTX_OFFSET", TagMatchingHeader.APP_CTX_OFFSET,
                "offsetof(struct ibv_tmh, app_ctx)");
        spiConstant(c, "TagMatchingHeader.TAG_OFFSET", TagMatchingHeader.TAG_OFFSET, "offsetof(struct ibv_tmh, tag)");
        spiConstant(c, "TagMatchingHeader.NO_TAG", TagMatchingHeader.NO_TAG, "IBV_TMH_NO_TAG");
        spiConstant(c, "TagMatchingHeader.RNDV", TagMatchingHeader.RNDV, "IBV_TMH_RNDV");
        spiConstant(c, "TagMatchingHeader.FIN", TagMatchingHeader.FIN, "IBV_TMH_FIN");
        spiConstant(c, "TagMatchingHeader.EAGER", TagMatchingHeader.EAGER, "IBV_TMH_EAGER");
        spiConstant(c, "RendezvousHeader.SIZE", RendezvousHeader.SIZE, "sizeof(struct ibv_rvh)");
        spiConstant(c, "RendezvousHeader.VA_OFFSET", RendezvousHeader.VA_OFFSET, "offsetof(struct ibv_rvh, va)");
        spiConstant(c, "RendezvousHeader.RKEY_OFFSET", RendezvousHeader.RKEY_OFFSET, "offsetof(struct ibv_rvh, rkey)");
        spiConstant(c, "RendezvousHeader.LEN_OFFSET", RendezvousHeader.LEN_OFFSET, "offsetof(struct ibv_rvh, len)");
        spiConstant(c, "CompletionBatch.TM_INFO_SIZE", dev.ibex.cm.spi.CompletionBatch.TM_INFO_SIZE,
                "sizeof(struct ibv_wc_tm_info)");
        spiConstant(c, "WcOpcode.TM_ADD", WcOpcode.TM_ADD, "IBV_WC_TM_ADD");
        spiConstant(c, "WcOpcode.TM_DEL", WcOpcode.TM_DEL, "IBV_WC_TM_DEL");
        spiConstant(c, "WcOpcode.TM_SYNC", WcOpcode.TM_SYNC, "IBV_WC_TM_SYNC");
        spiConstant(c, "WcOpcode.TM_RECV", WcOpcode.TM_RECV, "IBV_WC_TM_RECV");
        spiConstant(c, "WcOpcode.TM_NO_TAG", WcOpcode.TM_NO_TAG, "IBV_WC_TM_NO_TAG");
        spiConstant(c, "WcFlags.TM_SYNC_REQ", WcFlags.TM_SYNC_REQ, "IBV_WC_TM_SYNC_REQ");
        spiConstant(c, "WcFlags.TM_MATCH", WcFlags.TM_MATCH, "IBV_WC_TM_MATCH");
        spiConstant(c, "WcFlags.TM_DATA_VALID", WcFlags.TM_DATA_VALID, "IBV_WC_TM_DATA_VALID");
        spiConstant(c, "WcStatus.TM_ERR", dev.ibex.cm.spi.WcStatus.TM_ERR.code(), "IBV_WC_TM_ERR");
        spiConstant(c, "WcStatus.TM_RNDV_INCOMPLETE", dev.ibex.cm.spi.WcStatus.TM_RNDV_INCOMPLETE.code(),
                "IBV_WC_TM_RNDV_INCOMPLETE");
        spiConstant(c, "SrqOpsBatch.TAG_ADD", SrqOpsBatch.TAG_ADD, "IBV_WR_TAG_ADD");
        spiConstant(c, "SrqOpsBatch.TAG_DEL", SrqOpsBatch.TAG_DEL, "IBV_WR_TAG_DEL");
        spiConstant(c, "SrqOpsBatch.TAG_SYNC", SrqOpsBatch.TAG_SYNC, "IBV_WR_TAG_SYNC");
        spiConstant(c, "SrqOpsBatch.SIGNALED", SrqOpsBatch.SIGNALED, "IBV_OPS_SIGNALED");
        spiConstant(c, "SrqOpsBatch.TM_SYNC", SrqOpsBatch.TM_SYNC, "IBV_OPS_TM_SYNC");
        spiConstant(c, "TmCaps.CAP_RC", TmCaps.CAP_RC, "IBV_TM_CAP_RC");
        spiConstant(c, "PortAttributes.LINK_LAYER_INFINIBAND", PortAttributes.LINK_LAYER_INFINIBAND,
                "IBV_LINK_LAYER_INFINIBAND");
        spiConstant(c, "PortAttributes.LINK_LAYER_ETHERNET", PortAttributes.LINK_LAYER_ETHERNET,
                "IBV_LINK_LAYER_ETHERNET");
        c.append("  return 0;\n}\n");

        Path source = dir.resolve("layout.c");
        Files.writeString(source, c);
        Path binary = dir.resolve("layout");
        Gcc.compile(source, binary);
        Gcc.Result r = Gcc.run(List.of(binary.toString()), 60);
        assertThat(r.exit()).as("layout program output:\n%s", r.output()).isZero();
        fromC = new HashMap<>();
        for (String line : r.output().split("\n")) {
            String[] parts = line.split("\\|");
            int keyParts = switch (parts[0]) {
                case "V" -> 2;
                case "S" -> 2;
                case "F" -> 3;
                default -> 2;
            };
            fromC.put(String.join("|", List.of(parts).subList(0, keyParts)),
                    String.join("|", List.of(parts).subList(keyParts, parts.length)));
        }
        String summary = "C layout check: " + structs + " structs (size+alignment), " + fields + " fields (offset+size), "
                + constants + " constants, " + abiOffsets + " cm-core VerbsAbi offsets and SPI constants, " + checks.size() + " comparisons in all";
        System.out.println(summary);
        Files.writeString(Path.of("target", "c-layout-check.txt"), summary + "\n");
    }

    /**
     * The C expression for a cm-core {@code VerbsAbi} constant, by its naming rule:
     * {@code <STRUCT>_<FIELD>} is {@code offsetof}, {@code <STRUCT>_SIZE} is {@code sizeof}; send WR fields
     * {@code RDMA_/ATOMIC_/UD_*} live in the {@code wr} union.
     */
    private static String verbsAbiExpression(String name) {
        String[][] structs = {{"SEND_WR_", "struct ibv_send_wr"}, {"RECV_WR_", "struct ibv_recv_wr"},
            {"SGE_", "struct ibv_sge"}, {"WC_", "struct ibv_wc"}, {"GRH_", "struct ibv_grh"},
            {"OPS_WR_", "struct ibv_ops_wr"}};
        for (String[] s : structs) {
            if (name.startsWith(s[0])) {
                String field = name.substring(s[0].length()).toLowerCase(java.util.Locale.ROOT);
                if (field.equals("size")) {
                    return "sizeof(" + s[1] + ")";
                }
                for (String union : new String[] {"rdma_", "atomic_", "ud_"}) {
                    if (s[0].equals("SEND_WR_") && field.startsWith(union)) {
                        field = "wr." + union.substring(0, union.length() - 1) + "." + field.substring(union.length());
                    }
                }
                if (s[0].equals("OPS_WR_") && field.startsWith("tm_")) {
                    field = field.startsWith("tm_add_") ? "tm.add." + field.substring("tm_add_".length())
                            : "tm." + field.substring("tm_".length());
                }
                if (s[0].equals("SEND_WR_") && field.startsWith("bind_mw_")) {
                    String m = field.substring("bind_mw_".length());
                    field = "bind_mw." + switch (m) {
                        case "mw", "rkey" -> m;
                        case "access" -> "bind_info.mw_access_flags";
                        default -> "bind_info." + m;
                    };
                }
                return "offsetof(" + s[1] + ", " + field + ")";
            }
        }
        throw new AssertionError("VerbsAbi." + name + " follows no naming rule this test knows; extend verbsAbiExpression");
    }

    /** A cm-core SPI constant checked like a VerbsAbi offset, against the verbs.h expression it mirrors. */
    private static void spiConstant(StringBuilder c, String javaName, long value, String cExpression) {
        abiOffsets++;
        String key = "V|" + javaName;
        checks.add(new Check(key, Long.toString(value)));
        c.append("  printf(\"%s|%lld\\n\", \"").append(key).append("\", (long long)(").append(cExpression)
                .append("));\n");
    }

    private static void constant(StringBuilder c, String name, long value, boolean isInt) {
        constants++;
        String key = "C|" + name;
        checks.add(new Check(key, Long.toString(value) + (isInt ? "|int" : "|long")));
        c.append("  printf(\"%s|%lld\\n\", \"").append(key).append("\", (long long)(").append(name).append("));\n");
    }

    /** Emits one check per named member; unnamed groups are C anonymous unions/structs. */
    private static void walk(GroupLayout root, GroupLayout group, String prefix, long base, String cType, StringBuilder c) {
        long offset = base;
        for (MemoryLayout m : group.memberLayouts()) {
            long memberOffset = group instanceof StructLayout ? offset : base;
            if (m instanceof PaddingLayout) {
                offset += m.byteSize();
                continue;
            }
            if (m.name().isEmpty()) {
                if (!(m instanceof GroupLayout anonymous)) {
                    throw new AssertionError(cType + ": unnamed non-group member under '" + prefix + "'");
                }
                walk(root, anonymous, prefix, memberOffset, cType, c);
            } else {
                String path = prefix.isEmpty() ? m.name().get() : prefix + "." + m.name().get();
                assertThat(Layouts.offset(root, path)).as("Layouts.offset(%s, %s)", cType, path).isEqualTo(memberOffset);
                fields++;
                String key = "F|" + cType + "|" + path;
                checks.add(new Check(key, memberOffset + "|" + m.byteSize()));
                c.append("  printf(\"%s|%zu|%zu\\n\", \"").append(key).append("\", offsetof(").append(cType).append(", ")
                        .append(path).append("), sizeof(((").append(cType).append(" *)0)->").append(path).append("));\n");
                if (m instanceof GroupLayout nested) {
                    walk(root, nested, path, memberOffset, cType, c);
                }
            }
            offset += m.byteSize();
        }
    }

    @Test
    void everyStructSizeAlignmentAndFieldMatchesGcc() {
        List<String> mismatches = new ArrayList<>();
        for (Check check : checks) {
            if (!check.key.startsWith("S|") && !check.key.startsWith("F|")) {
                continue;
            }
            String c = fromC.get(check.key);
            if (!check.java.equals(c)) {
                String what = check.key.startsWith("S|") ? "size|align" : "offset|size";
                mismatches.add(check.key.substring(2).replace('|', '.') + ": Java " + what + " " + check.java + ", C " + c);
            }
        }
        assertThat(mismatches).as("struct layouts that differ from the installed headers").isEmpty();
    }

    @Test
    void everyConstantMatchesTheHeaders() {
        List<String> mismatches = new ArrayList<>();
        for (Check check : checks) {
            if (!check.key.startsWith("C|")) {
                continue;
            }
            String[] java = check.java.split("\\|");
            long javaValue = Long.parseLong(java[0]);
            long cValue = Long.parseLong(fromC.get(check.key));
            boolean equal = java[1].equals("int") ? (int) cValue == (int) javaValue : cValue == javaValue;
            if (!equal) {
                mismatches.add(check.key.substring(2) + ": Java " + javaValue + ", C " + cValue);
            }
        }
        assertThat(mismatches).as("constants that differ from the installed headers").isEmpty();
    }

    @Test
    void cmCoreVerbsAbiOffsetsMatchTheHeaders() {
        List<String> mismatches = new ArrayList<>();
        for (Check check : checks) {
            if (check.key.startsWith("V|") && !check.java.equals(fromC.get(check.key))) {
                mismatches.add(check.key.substring(2) + ": Java " + check.java + ", C " + fromC.get(check.key));
            }
        }
        assertThat(abiOffsets).isPositive();
        assertThat(mismatches).as("cm-core VerbsAbi offsets that differ from the installed headers").isEmpty();
    }

    @Test
    void inlineVerbOpsSitWhereTheToolchainProbeFoundThem() {
        assertThat(IbvContext.OFFSET_OPS_POLL_CQ).isEqualTo(96);
        assertThat(IbvContext.OFFSET_OPS_REQ_NOTIFY_CQ).isEqualTo(104);
        assertThat(IbvContext.OFFSET_OPS_POST_SRQ_RECV).isEqualTo(168);
        assertThat(IbvContext.OFFSET_OPS_POST_SEND).isEqualTo(208);
        assertThat(IbvContext.OFFSET_OPS_POST_RECV).isEqualTo(216);
        assertThat(fromC).containsEntry("F|struct ibv_context|ops.post_send", "208|8");
    }

    @Test
    void theCheckCoversEveryStructAndConstantClass() {
        assertThat(structs).isGreaterThanOrEqualTo(40);
        assertThat(fields).isGreaterThan(400);
        assertThat(fromC).containsKey("C|" + "IBV_ACCESS_OPTIONAL_RANGE");
        assertThat(IbvAccessFlags.IBV_ACCESS_OPTIONAL_RANGE).isEqualTo(0x3FF00000);
    }

    private static Field layoutField(Class<?> type) {
        try {
            Field f = type.getField("LAYOUT");
            return GroupLayout.class.isAssignableFrom(f.getType()) ? f : null;
        } catch (NoSuchFieldException e) {
            return null;
        }
    }

    /** The top-level classes of a package in the compiled main classes directory. */
    static List<Class<?>> classesIn(String pkg) throws IOException, URISyntaxException, ClassNotFoundException {
        Path root = Path.of(Layouts.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path dir = root.resolve(pkg.replace('.', '/'));
        List<Class<?>> result = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : files.sorted().toList()) {
                String name = p.getFileName().toString();
                if (name.endsWith(".class") && !name.contains("$") && !name.equals("package-info.class")) {
                    result.add(Class.forName(pkg + "." + name.substring(0, name.length() - 6)));
                }
            }
        }
        return result;
    }
}
