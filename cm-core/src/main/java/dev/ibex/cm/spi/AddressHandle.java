package dev.ibex.cm.spi;

/** {@code struct ibv_ah}: a UD destination. Must outlive every work request that uses it. */
public interface AddressHandle extends ResourceTracker.Tracked {
    @Override
    default ResourceKind kind() {
        return ResourceKind.ADDRESS_HANDLE;
    }

    /** {@return the value written into {@code ibv_send_wr.wr.ud.ah} (a native pointer or a provider handle)} */
    long handle();

    /** {@return the path the handle was created for} */
    AhAttr attr();
}
