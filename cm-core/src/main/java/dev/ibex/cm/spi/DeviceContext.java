package dev.ibex.cm.spi;

/**
 * An opened device ({@code struct ibv_context}). Opened and owned by the {@link Fabric}; closing the fabric
 * closes it. Queries are thread-safe.
 */
public interface DeviceContext {
    /** {@return what the device is: name, GUID, node type, transport} */
    Device device();

    /** {@return the device's attributes ({@code ibv_query_device})} */
    DeviceAttributes queryDevice();

    /**
     * The device's tag-matching capabilities ({@code ibv_query_device_ex}'s {@code tm_caps}). The default is a device
     * without tag matching.
     *
     * @return the capabilities; {@link TmCaps#NONE} when the device has no tag matching
     */
    default TmCaps queryTmCaps() {
        return TmCaps.NONE;
    }

    /**
     * {@code ibv_query_port}. Port numbers start at 1.
     *
     * @param port the port number
     * @return the port's state, MTU, link layer and table sizes
     */
    PortAttributes queryPort(int port);

    /**
     * {@code ibv_query_gid}.
     *
     * @param port the port number, from 1
     * @param index the entry's index in the port's GID table
     * @return the GID (on RoCE, an IP address)
     */
    Gid queryGid(int port, int index);

    /**
     * {@code ibv_query_pkey}.
     *
     * @param port the port number, from 1
     * @param index the entry's index in the port's P_Key table
     * @return the P_Key (16 bits)
     */
    int queryPkey(int port, int index);

    /**
     * Whether a QP on {@code port} can load an alternate path and migrate (APM). The default is what Linux does:
     * the device must claim {@code IBV_DEVICE_AUTO_PATH_MIG} and the port must be InfiniBand — the kernel refuses
     * {@code IBV_QP_ALT_PATH} on RoCE with EINVAL although rxe claims the flag. A provider that migrates paths on
     * Ethernet by itself (as the IBA allows) overrides this.
     *
     * @param port the port number, from 1
     * @return whether QPs on the port can use APM
     */
    default boolean migratesPaths(int port) {
        return queryDevice().supportsAutoPathMigration()
                && queryPort(port).linkLayer() == PortAttributes.LINK_LAYER_INFINIBAND;
    }

    /**
     * Whether a memory window confines remote access to its own bytes, as the IBA requires (C10-75: a request must
     * lie inside the window). Linux rxe checks a window's rights and QP but then only the bounds of the region under
     * it ({@code check_rkey} calls {@code mr_check_range} on the window's MR), so there a window over part of a
     * region exposes all of it; the framework then binds each window over a region of exactly the exposed bytes.
     * The default: whatever the device claims, when it claims memory windows.
     *
     * @return whether a window over part of a region exposes only that part
     */
    default boolean enforcesWindowBounds() {
        return queryDevice().supportsMemoryWindows();
    }

    /**
     * The index of {@code gid} in the port's GID table, or -1.
     *
     * @param port the port number, from 1
     * @param gid the GID to find
     * @return its index, or -1 when the table does not hold it
     */
    default int gidIndexOf(int port, Gid gid) {
        int n = queryPort(port).gidTableLength();
        for (int i = 0; i < n; i++) {
            Gid g;
            try {
                g = queryGid(port, i);
            } catch (RuntimeException e) {
                continue; // unpopulated entries may fail to query on some devices
            }
            if (g.equals(gid)) {
                return i;
            }
        }
        return -1;
    }

    /** {@return a new protection domain ({@code ibv_alloc_pd})} */
    ProtectionDomain allocPd();

    /** {@return a new completion channel ({@code ibv_create_comp_channel}) for CQ notifications} */
    CompletionChannel createCompletionChannel();

    /**
     * {@code ibv_create_cq}.
     *
     * @param minEntries at least this many entries (the CQ may be larger: see {@link CompletionQueue#capacity()})
     * @param channel the channel its notifications go to, or {@code null} for a polled-only CQ
     * @param vector completion vector, {@code 0 <= vector < numCompVectors()}
     * @return the new CQ
     */
    CompletionQueue createCompletionQueue(int minEntries, CompletionChannel channel, int vector);

    /** {@return how many completion vectors (interrupt queues) the device has, at least 1} */
    int numCompVectors();

    /** {@return the device's async events ({@code ibv_get_async_event}); one source per context} */
    AsyncEventSource asyncEvents();
}
