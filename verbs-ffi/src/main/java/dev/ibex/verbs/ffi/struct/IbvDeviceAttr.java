package dev.ibex.verbs.ffi.struct;

import static dev.ibex.verbs.ffi.struct.Layouts.*;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * {@code struct ibv_device_attr}: device limits and capabilities from {@code ibv_query_device}
 * ({@code device_cap_flags} bits are in {@code IbvDeviceCapFlags}, e.g. {@code IBV_DEVICE_AUTO_PATH_MIG}).
 */
public final class IbvDeviceAttr {
    /** {@code struct ibv_device_attr} with explicit padding. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            chars("fw_ver", 64),
            BE64.withName("node_guid"),
            BE64.withName("sys_image_guid"),
            U64.withName("max_mr_size"),
            U64.withName("page_size_cap"),
            U32.withName("vendor_id"),
            U32.withName("vendor_part_id"),
            U32.withName("hw_ver"),
            U32.withName("max_qp"),
            U32.withName("max_qp_wr"),
            U32.withName("device_cap_flags"),
            U32.withName("max_sge"),
            U32.withName("max_sge_rd"),
            U32.withName("max_cq"),
            U32.withName("max_cqe"),
            U32.withName("max_mr"),
            U32.withName("max_pd"),
            U32.withName("max_qp_rd_atom"),
            U32.withName("max_ee_rd_atom"),
            U32.withName("max_res_rd_atom"),
            U32.withName("max_qp_init_rd_atom"),
            U32.withName("max_ee_init_rd_atom"),
            U32.withName("atomic_cap"),
            U32.withName("max_ee"),
            U32.withName("max_rdd"),
            U32.withName("max_mw"),
            U32.withName("max_raw_ipv6_qp"),
            U32.withName("max_raw_ethy_qp"),
            U32.withName("max_mcast_grp"),
            U32.withName("max_mcast_qp_attach"),
            U32.withName("max_total_mcast_qp_attach"),
            U32.withName("max_ah"),
            U32.withName("max_fmr"),
            U32.withName("max_map_per_fmr"),
            U32.withName("max_srq"),
            U32.withName("max_srq_wr"),
            U32.withName("max_srq_sge"),
            U16.withName("max_pkeys"),
            U8.withName("local_ca_ack_delay"),
            U8.withName("phys_port_cnt"),
            pad(4))
            .withName("ibv_device_attr");
    /** {@code sizeof(struct ibv_device_attr)}. */
    public static final long SIZE = LAYOUT.byteSize();
    /** {@code offsetof(struct ibv_device_attr, fw_ver)}. */
    public static final long OFFSET_FW_VER = offset(LAYOUT, "fw_ver");
    /** {@code offsetof(struct ibv_device_attr, node_guid)}. */
    public static final long OFFSET_NODE_GUID = offset(LAYOUT, "node_guid");
    /** {@code offsetof(struct ibv_device_attr, sys_image_guid)}. */
    public static final long OFFSET_SYS_IMAGE_GUID = offset(LAYOUT, "sys_image_guid");
    /** {@code offsetof(struct ibv_device_attr, max_mr_size)}. */
    public static final long OFFSET_MAX_MR_SIZE = offset(LAYOUT, "max_mr_size");
    /** {@code offsetof(struct ibv_device_attr, page_size_cap)}. */
    public static final long OFFSET_PAGE_SIZE_CAP = offset(LAYOUT, "page_size_cap");
    /** {@code offsetof(struct ibv_device_attr, vendor_id)}. */
    public static final long OFFSET_VENDOR_ID = offset(LAYOUT, "vendor_id");
    /** {@code offsetof(struct ibv_device_attr, vendor_part_id)}. */
    public static final long OFFSET_VENDOR_PART_ID = offset(LAYOUT, "vendor_part_id");
    /** {@code offsetof(struct ibv_device_attr, hw_ver)}. */
    public static final long OFFSET_HW_VER = offset(LAYOUT, "hw_ver");
    /** {@code offsetof(struct ibv_device_attr, max_qp)}. */
    public static final long OFFSET_MAX_QP = offset(LAYOUT, "max_qp");
    /** {@code offsetof(struct ibv_device_attr, max_qp_wr)}. */
    public static final long OFFSET_MAX_QP_WR = offset(LAYOUT, "max_qp_wr");
    /** {@code offsetof(struct ibv_device_attr, device_cap_flags)}. */
    public static final long OFFSET_DEVICE_CAP_FLAGS = offset(LAYOUT, "device_cap_flags");
    /** {@code offsetof(struct ibv_device_attr, max_sge)}. */
    public static final long OFFSET_MAX_SGE = offset(LAYOUT, "max_sge");
    /** {@code offsetof(struct ibv_device_attr, max_sge_rd)}. */
    public static final long OFFSET_MAX_SGE_RD = offset(LAYOUT, "max_sge_rd");
    /** {@code offsetof(struct ibv_device_attr, max_cq)}. */
    public static final long OFFSET_MAX_CQ = offset(LAYOUT, "max_cq");
    /** {@code offsetof(struct ibv_device_attr, max_cqe)}. */
    public static final long OFFSET_MAX_CQE = offset(LAYOUT, "max_cqe");
    /** {@code offsetof(struct ibv_device_attr, max_mr)}. */
    public static final long OFFSET_MAX_MR = offset(LAYOUT, "max_mr");
    /** {@code offsetof(struct ibv_device_attr, max_pd)}. */
    public static final long OFFSET_MAX_PD = offset(LAYOUT, "max_pd");
    /** {@code offsetof(struct ibv_device_attr, max_qp_rd_atom)}. */
    public static final long OFFSET_MAX_QP_RD_ATOM = offset(LAYOUT, "max_qp_rd_atom");
    /** {@code offsetof(struct ibv_device_attr, max_ee_rd_atom)}. */
    public static final long OFFSET_MAX_EE_RD_ATOM = offset(LAYOUT, "max_ee_rd_atom");
    /** {@code offsetof(struct ibv_device_attr, max_res_rd_atom)}. */
    public static final long OFFSET_MAX_RES_RD_ATOM = offset(LAYOUT, "max_res_rd_atom");
    /** {@code offsetof(struct ibv_device_attr, max_qp_init_rd_atom)}. */
    public static final long OFFSET_MAX_QP_INIT_RD_ATOM = offset(LAYOUT, "max_qp_init_rd_atom");
    /** {@code offsetof(struct ibv_device_attr, max_ee_init_rd_atom)}. */
    public static final long OFFSET_MAX_EE_INIT_RD_ATOM = offset(LAYOUT, "max_ee_init_rd_atom");
    /** {@code offsetof(struct ibv_device_attr, atomic_cap)}. */
    public static final long OFFSET_ATOMIC_CAP = offset(LAYOUT, "atomic_cap");
    /** {@code offsetof(struct ibv_device_attr, max_ee)}. */
    public static final long OFFSET_MAX_EE = offset(LAYOUT, "max_ee");
    /** {@code offsetof(struct ibv_device_attr, max_rdd)}. */
    public static final long OFFSET_MAX_RDD = offset(LAYOUT, "max_rdd");
    /** {@code offsetof(struct ibv_device_attr, max_mw)}. */
    public static final long OFFSET_MAX_MW = offset(LAYOUT, "max_mw");
    /** {@code offsetof(struct ibv_device_attr, max_raw_ipv6_qp)}. */
    public static final long OFFSET_MAX_RAW_IPV6_QP = offset(LAYOUT, "max_raw_ipv6_qp");
    /** {@code offsetof(struct ibv_device_attr, max_raw_ethy_qp)}. */
    public static final long OFFSET_MAX_RAW_ETHY_QP = offset(LAYOUT, "max_raw_ethy_qp");
    /** {@code offsetof(struct ibv_device_attr, max_mcast_grp)}. */
    public static final long OFFSET_MAX_MCAST_GRP = offset(LAYOUT, "max_mcast_grp");
    /** {@code offsetof(struct ibv_device_attr, max_mcast_qp_attach)}. */
    public static final long OFFSET_MAX_MCAST_QP_ATTACH = offset(LAYOUT, "max_mcast_qp_attach");
    /** {@code offsetof(struct ibv_device_attr, max_total_mcast_qp_attach)}. */
    public static final long OFFSET_MAX_TOTAL_MCAST_QP_ATTACH = offset(LAYOUT, "max_total_mcast_qp_attach");
    /** {@code offsetof(struct ibv_device_attr, max_ah)}. */
    public static final long OFFSET_MAX_AH = offset(LAYOUT, "max_ah");
    /** {@code offsetof(struct ibv_device_attr, max_fmr)}. */
    public static final long OFFSET_MAX_FMR = offset(LAYOUT, "max_fmr");
    /** {@code offsetof(struct ibv_device_attr, max_map_per_fmr)}. */
    public static final long OFFSET_MAX_MAP_PER_FMR = offset(LAYOUT, "max_map_per_fmr");
    /** {@code offsetof(struct ibv_device_attr, max_srq)}. */
    public static final long OFFSET_MAX_SRQ = offset(LAYOUT, "max_srq");
    /** {@code offsetof(struct ibv_device_attr, max_srq_wr)}. */
    public static final long OFFSET_MAX_SRQ_WR = offset(LAYOUT, "max_srq_wr");
    /** {@code offsetof(struct ibv_device_attr, max_srq_sge)}. */
    public static final long OFFSET_MAX_SRQ_SGE = offset(LAYOUT, "max_srq_sge");
    /** {@code offsetof(struct ibv_device_attr, max_pkeys)}. */
    public static final long OFFSET_MAX_PKEYS = offset(LAYOUT, "max_pkeys");
    /** {@code offsetof(struct ibv_device_attr, local_ca_ack_delay)}. */
    public static final long OFFSET_LOCAL_CA_ACK_DELAY = offset(LAYOUT, "local_ca_ack_delay");
    /** {@code offsetof(struct ibv_device_attr, phys_port_cnt)}. */
    public static final long OFFSET_PHYS_PORT_CNT = offset(LAYOUT, "phys_port_cnt");

    private IbvDeviceAttr() {
    }

    public static String fwVer(MemorySegment s) {
        return Layouts.cString(s, OFFSET_FW_VER, 64);
    }

    public static long nodeGuid(MemorySegment s) {
        return s.get(BE64, OFFSET_NODE_GUID);
    }

    public static long sysImageGuid(MemorySegment s) {
        return s.get(BE64, OFFSET_SYS_IMAGE_GUID);
    }

    public static long maxMrSize(MemorySegment s) {
        return s.get(U64, OFFSET_MAX_MR_SIZE);
    }

    public static long pageSizeCap(MemorySegment s) {
        return s.get(U64, OFFSET_PAGE_SIZE_CAP);
    }

    public static int vendorId(MemorySegment s) {
        return s.get(U32, OFFSET_VENDOR_ID);
    }

    public static int vendorPartId(MemorySegment s) {
        return s.get(U32, OFFSET_VENDOR_PART_ID);
    }

    public static int hwVer(MemorySegment s) {
        return s.get(U32, OFFSET_HW_VER);
    }

    public static int maxQp(MemorySegment s) {
        return s.get(U32, OFFSET_MAX_QP);
    }

    public static int maxQpWr(MemorySegment s) {
        return s.get(U32, OFFSET_MAX_QP_WR);
    }

    public static int deviceCapFlags(MemorySegment s) {
        return s.get(U32, OFFSET_DEVICE_CAP_FLAGS);
    }

    public static int maxSge(MemorySegment s) {
        return s.get(U32, OFFSET_MAX_SGE);
    }

    public static int maxSgeRd(MemorySegment s) {
        return s.get(U32, OFFSET_MAX_SGE_RD);
    }

    public static int maxCq(MemorySegment s) {
        return s.get(U32, OFFSET_MAX_CQ);
    }

    public static int maxCqe(MemorySegment s) {
        return s.get(U32, OFFSET_MAX_CQE);
    }

    public static int maxMr(MemorySegment s) {
        return s.get(U32, OFFSET_MAX_MR);
    }

    public static int maxPd(MemorySegment s) {
        return s.get(U32, OFFSET_MAX_PD);
    }

    public static int maxQpRdAtom(MemorySegment s) {
        return s.get(U32, OFFSET_MAX_QP_RD_ATOM);
    }

    public static int maxEeRdAtom(MemorySegment s) {
        return s.get(U32, OFFSET_MAX_EE_RD_ATOM);
    }

    public static int maxResRdAtom(MemorySegment s) {
        return s.get(U32, OFFSET_MAX_RES_RD_ATOM);
    }

    public static int maxQpInitRdAtom(MemorySegment s) {
        return s.get(U32, OFFSET_MAX_QP_INIT_RD_ATOM);
    }

    public static int maxEeInitRdAtom(MemorySegment s) {
        return s.get(U32, OFFSET_MAX_EE_INIT_RD_ATOM);
    }

    public static int atomicCap(MemorySegment s) {
        return s.get(U32, OFFSET_ATOMIC_CAP);
    }

    public static int maxEe(MemorySegment s) {
        return s.get(U32, OFFSET_MAX_EE);
    }

    public static int maxRdd(MemorySegment s) {
        return s.get(U32, OFFSET_MAX_RDD);
    }

    public static int maxMw(MemorySegment s) {
        return s.get(U32, OFFSET_MAX_MW);
    }

    public static int maxRawIpv6Qp(MemorySegment s) {
        return s.get(U32, OFFSET_MAX_RAW_IPV6_QP);
    }

    public static int maxRawEthyQp(MemorySegment s) {
        return s.get(U32, OFFSET_MAX_RAW_ETHY_QP);
    }

    public static int maxMcastGrp(MemorySegment s) {
        return s.get(U32, OFFSET_MAX_MCAST_GRP);
    }

    public static int maxMcastQpAttach(MemorySegment s) {
        return s.get(U32, OFFSET_MAX_MCAST_QP_ATTACH);
    }

    public static int maxTotalMcastQpAttach(MemorySegment s) {
        return s.get(U32, OFFSET_MAX_TOTAL_MCAST_QP_ATTACH);
    }

    public static int maxAh(MemorySegment s) {
        return s.get(U32, OFFSET_MAX_AH);
    }

    public static int maxFmr(MemorySegment s) {
        return s.get(U32, OFFSET_MAX_FMR);
    }

    public static int maxMapPerFmr(MemorySegment s) {
        return s.get(U32, OFFSET_MAX_MAP_PER_FMR);
    }

    public static int maxSrq(MemorySegment s) {
        return s.get(U32, OFFSET_MAX_SRQ);
    }

    public static int maxSrqWr(MemorySegment s) {
        return s.get(U32, OFFSET_MAX_SRQ_WR);
    }

    public static int maxSrqSge(MemorySegment s) {
        return s.get(U32, OFFSET_MAX_SRQ_SGE);
    }

    public static int maxPkeys(MemorySegment s) {
        return Short.toUnsignedInt(s.get(U16, OFFSET_MAX_PKEYS));
    }

    public static int localCaAckDelay(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(U8, OFFSET_LOCAL_CA_ACK_DELAY));
    }

    public static int physPortCnt(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(U8, OFFSET_PHYS_PORT_CNT));
    }
}
