package dev.ibex.verbs.ffi;

import dev.ibex.verbs.ffi.struct.IbvContext;
import dev.ibex.verbs.ffi.struct.VerbsContext;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Test helper: builds {@code fakeprovider.c} into a shared library and makes hand-built
 * {@code struct verbs_context} + {@code struct ibv_context} memory whose ops point at its functions, the
 * way a real provider's {@code ibv_open_device} result looks to the static inline verbs.
 */
public final class FakeProvider {
    private static SymbolLookup lookup;

    private FakeProvider() {
    }

    /** Compiles (once per JVM) and loads the fake provider. */
    static synchronized SymbolLookup load() throws IOException, InterruptedException {
        if (lookup == null) {
            Path dir = Files.createTempDirectory("ibex-fakeprov");
            Path source = dir.resolve("fakeprovider.c");
            try (InputStream in = FakeProvider.class.getResourceAsStream("/native/fakeprovider.c")) {
                Files.copy(in, source);
            }
            Path so = dir.resolve("libfakeprovider.so");
            Gcc.compile(source, so, "-shared", "-fPIC");
            lookup = SymbolLookup.libraryLookup(so, Arena.global());
        }
        return lookup;
    }

    static MemorySegment fn(String name) throws IOException, InterruptedException {
        return load().find(name).orElseThrow();
    }

    /**
     * An extended context: a zeroed {@code verbs_context} whose embedded {@code ibv_context} has the five
     * data-path ops, {@code abi_compat = __VERBS_ABI_IS_EXTENDED}, {@code sz} and {@code query_port} set.
     */
    public static MemorySegment context(Arena arena) throws IOException, InterruptedException {
        MemorySegment vctx = arena.allocate(VerbsContext.LAYOUT);
        MemorySegment ctx = vctx.asSlice(VerbsContext.CONTEXT_OFFSET, IbvContext.SIZE);
        ctx.set(ValueLayout.ADDRESS, IbvContext.OFFSET_OPS_POLL_CQ, fn("fake_poll_cq"));
        ctx.set(ValueLayout.ADDRESS, IbvContext.OFFSET_OPS_REQ_NOTIFY_CQ, fn("fake_req_notify_cq"));
        ctx.set(ValueLayout.ADDRESS, IbvContext.OFFSET_OPS_POST_SEND, fn("fake_post_send"));
        ctx.set(ValueLayout.ADDRESS, IbvContext.OFFSET_OPS_POST_RECV, fn("fake_post_recv"));
        ctx.set(ValueLayout.ADDRESS, IbvContext.OFFSET_OPS_POST_SRQ_RECV, fn("fake_post_srq_recv"));
        ctx.set(ValueLayout.JAVA_LONG, IbvContext.OFFSET_ABI_COMPAT, IbvContext.VERBS_ABI_IS_EXTENDED);
        vctx.set(ValueLayout.JAVA_LONG, VerbsContext.OFFSET_SZ, VerbsContext.SIZE);
        vctx.set(ValueLayout.ADDRESS, VerbsContext.OFFSET_QUERY_PORT, fn("fake_query_port"));
        return ctx;
    }
}
