package dev.ibex.verbs.ffi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ibex.cm.Errno;
import dev.ibex.cm.RdmaException;
import dev.ibex.verbs.ffi.struct.Layouts;
import java.io.IOException;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a machine without RDMA sees: typed, readable errors and a probe that does not throw. The kernel
 * cases need a kernel without RDMA support (the case on this project's CI machines); the zero-device and
 * missing-library cases run anywhere.
 */
class NoDeviceTest {
    private static final Path VERBS_SYSFS = Path.of("/sys/class/infiniband_verbs");

    private static void assumeKernelWithoutRdma() {
        assumeTrue(Libraries.ibverbs().isAvailable() && Libraries.rdmacm().isAvailable(),
                "rdma-core libraries are not installed: " + Libraries.INSTALL);
        assumeTrue(!Files.exists(VERBS_SYSFS), "this kernel has RDMA support (" + VERBS_SYSFS + " exists)");
    }

    @Test
    void deviceListWithoutKernelSupportIsATypedEnosysError() {
        assumeKernelWithoutRdma();
        assertThatThrownBy(Devices::getDeviceList)
                .isInstanceOfSatisfying(RdmaException.class, e -> {
                    assertThat(e.verb()).isEqualTo("ibv_get_device_list");
                    assertThat(e.errno()).isEqualTo(Errno.ENOSYS);
                })
                .hasMessageContaining("no RDMA device: the kernel has no RDMA support (ENOSYS)")
                .hasMessageContaining("-Dibex.provider=soft-roce")
                .hasMessageContaining("rdma link add rxe0 type rxe netdev");
    }

    @Test
    void eventChannelWithoutKernelSupportIsATypedEnodevError() {
        assumeKernelWithoutRdma();
        assertThatThrownBy(RdmaCm::createEventChannel)
                .isInstanceOfSatisfying(RdmaException.class, e -> assertThat(e.errno()).isEqualTo(Errno.ENODEV))
                .hasMessageStartingWith("rdma_create_event_channel failed: ENODEV (No such device); no RDMA device")
                .hasMessageContaining("soft-roce");
        assertThatThrownBy(() -> RdmaCm.getaddrinfo("127.0.0.1", "7471", MemorySegment.NULL))
                .isInstanceOfSatisfying(RdmaException.class, e -> assertThat(e.errno()).isEqualTo(Errno.ENODEV))
                .hasMessageContaining("no RDMA device");
        assertThatThrownBy(RdmaCm::getDevices)
                .isInstanceOfSatisfying(RdmaException.class, e -> assertThat(e.errno()).isEqualTo(Errno.ENODEV));
    }

    @Test
    void probeReportsNoKernelSupportWithoutThrowing() {
        assumeKernelWithoutRdma();
        RdmaAvailability a = RdmaAvailability.probe();
        assertThat(a.librariesPresent()).isTrue();
        assertThat(a.deviceCount()).isZero();
        assertThat(a.usable()).isFalse();
        assertThat(a.connectionManager()).isFalse();
        assertThat(a.reason()).contains("ENOSYS").contains("soft-roce");
    }

    @Test
    void stringsAndEnumHelpersWorkWithoutDevices() {
        assumeTrue(Libraries.ibverbs().isAvailable() && Libraries.rdmacm().isAvailable(), Libraries.INSTALL);
        assertThat(RdmaCm.eventStr(9)).isEqualTo("RDMA_CM_EVENT_ESTABLISHED");
        assertThat(EnumStrings.wcStatusStr(12)).isEqualTo("transport retry counter exceeded");
        assertThat(EnumStrings.eventTypeStr(6)).isEqualTo("path migrated");
        assertThat(EnumStrings.portStateStr(4)).isEqualTo("active");
        assertThat(EnumStrings.nodeTypeStr(1)).isEqualTo("InfiniBand channel adapter");
        assertThat(LibC.strerror(19)).isEqualTo("No such device");
        assertThat(ForkSupport.isForkInitialized()).isBetween(0, 2);
    }

    @Test
    void zeroDevicesViaAnEmptyFakeSysfsGetItsOwnMessage(@TempDir Path sysfs) throws IOException, InterruptedException {
        assumeTrue(Libraries.ibverbs().isAvailable() && Libraries.rdmacm().isAvailable(), Libraries.INSTALL);
        Path abi = sysfs.resolve("class/infiniband_verbs/abi_version");
        Files.createDirectories(abi.getParent());
        Files.writeString(abi, "6\n");
        Path log = sysfs.resolve("child.log");
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                ZeroDeviceProbe.class.getName())
                .redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("SYSFS_PATH", sysfs.toString());
        Process child = pb.start();
        boolean finished = child.waitFor(60, TimeUnit.SECONDS);
        if (!finished) {
            child.destroyForcibly();
        }
        String output = Files.readString(log);
        assertThat(finished).as("child JVM finished; output:\n%s", output).isTrue();
        assertThat(child.exitValue()).as(output).isZero();
        Map<String, String> kv = new HashMap<>();
        for (String line : output.split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                kv.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        assertThat(kv).as(output).containsEntry("done", "true")
                .containsEntry("deviceCount", "0")
                .containsEntry("usable", "false")
                .containsEntry("listNull", "false")
                .containsEntry("listEntries", "0")
                .containsEntry("reason", RdmaErrors.ZERO_DEVICES);
        assertThat(kv.get("cm")).isIn("ENODEV", "ok");
    }

    @Test
    void aMissingLibraryIsRecordedAndReportedOnUseNotAtClassInit() throws Throwable {
        NativeLibrary missing = NativeLibrary.load("libibex-not-there.so.9", Libraries.INSTALL);
        assertThat(missing.isAvailable()).isFalse();
        assertThat(missing.unavailableReason()).hasValue("libibex-not-there.so.9 not found: " + Libraries.INSTALL);
        assertThat(missing.find("anything")).isEmpty();

        Downcalls d = Downcalls.of(missing);
        MethodHandle withErrno = d.errno("ibex_fn", FunctionDescriptor.of(ValueLayout.JAVA_INT, Layouts.PTR));
        MethodHandle plain = d.plain("ibex_void", FunctionDescriptor.ofVoid());
        assertThat(d.functions()).extracting(Downcalls.Function::present).containsOnly(false);
        MemorySegment capture = CallState.current().capture();
        assertThatThrownBy(() -> {
            int ignored = (int) withErrno.invokeExact(capture, MemorySegment.NULL);
        })
                .isInstanceOfSatisfying(RdmaException.class, e -> {
                    assertThat(e.verb()).isEqualTo("ibex_fn");
                    assertThat(e.errno()).isEqualTo(Errno.ELIBACC);
                })
                .hasMessageContaining("libibex-not-there.so.9 not found: install rdma-core: apt-get install librdmacm1 libibverbs1");
        assertThatThrownBy(() -> {
            plain.invokeExact();
        }).isInstanceOf(RdmaException.class);
        // the same holder may be asked again: no ExceptionInInitializerError, the same clear error
        assertThatThrownBy(() -> {
            plain.invokeExact();
        }).isInstanceOf(RdmaException.class);
    }

    @Test
    void deniedNativeAccessIsAdvisedWithTheFlagForTheClassPath() {
        // tests run on the class path; on the module path the advice names the module (dev.ibex.verbs)
        assertThat(NativeLibrary.nativeAccessFlag()).isEqualTo("--enable-native-access=ALL-UNNAMED");
    }

    @Test
    void aMissingOptionalSymbolIsReportedByName() {
        NativeLibrary libc = Libraries.libc();
        Downcalls d = Downcalls.of(libc);
        MethodHandle h = d.optionalPlain("ibex_no_such_symbol", FunctionDescriptor.of(ValueLayout.JAVA_INT));
        assertThat(d.functions()).containsExactly(new Downcalls.Function("libc.so.6", "ibex_no_such_symbol", true, false));
        assertThatThrownBy(() -> {
            int ignored = (int) h.invokeExact();
        }).isInstanceOfSatisfying(RdmaException.class, e -> assertThat(e.errno()).isEqualTo(Errno.ENOSYS))
                .hasMessageContaining("ibex_no_such_symbol is not exported by libc.so.6");
    }

    @Test
    void nullObjectPointersAreRejectedBeforeAnyNativeCall() {
        assertThatThrownBy(() -> ProtectionDomains.allocPd(MemorySegment.NULL))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("ibv_alloc_pd: argument 1 must not be NULL");
        assertThatThrownBy(() -> QueuePairs.modifyQp(MemorySegment.NULL, MemorySegment.NULL, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("qp must not be NULL");
        assertThatThrownBy(() -> RdmaCm.destroyId(MemorySegment.NULL)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RdmaCm.getCmEvent(MemorySegment.NULL)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CompletionQueues.createCq(MemorySegment.NULL, 0, MemorySegment.NULL, MemorySegment.NULL, 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RdmaCm.getaddrinfo(null, null, MemorySegment.NULL))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void errnoConventionsAreAllUnderstood() {
        assertThat(RdmaErrors.errnoOf(-1, 19)).isEqualTo(19);
        assertThat(RdmaErrors.errnoOf(12, 0)).isEqualTo(12);
        assertThat(RdmaErrors.errnoOf(-22, 0)).isEqualTo(22);
        assertThatThrownBy(() -> RdmaErrors.check("ibv_post_send", 12))
                .hasMessage("ibv_post_send failed: ENOMEM (Cannot allocate memory); the work queue is full: wait for completions before posting more");
        assertThat(RdmaErrors.zeroDevices()).hasMessage("ibv_get_device_list failed: ENODEV (No such device); "
                + RdmaErrors.ZERO_DEVICES);
    }
}
