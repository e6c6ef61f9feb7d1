/**
 * One class per C struct the bindings use: its complete {@code MemoryLayout} ({@code LAYOUT}) with every
 * padding byte explicit, {@code SIZE}, {@code OFFSET_*} constants and static accessors named after the C
 * fields. Data-path structs ({@link dev.ibex.verbs.ffi.struct.IbvWc}, {@link dev.ibex.verbs.ffi.struct.IbvSendWr},
 * {@link dev.ibex.verbs.ffi.struct.IbvRecvWr}, {@link dev.ibex.verbs.ffi.struct.IbvSge}) take an element
 * index and raw addresses so reading completions and writing work requests never allocates. See
 * {@link dev.ibex.verbs.ffi.struct.Layouts} for the conventions.
 */
package dev.ibex.verbs.ffi.struct;
