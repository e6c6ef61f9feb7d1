package dev.ibex.cm;

/**
 * Linux errno values with their symbolic names, so that errors read "ENODEV (No such device)"
 * instead of "19". Numbers are the x86_64/generic Linux values (asm-generic/errno*.h).
 */
public enum Errno {
    /** Operation not permitted (1). */
    EPERM(1, "Operation not permitted"),
    /** No such file or directory (2). */
    ENOENT(2, "No such file or directory"),
    /** No such process (3). */
    ESRCH(3, "No such process"),
    /** Interrupted system call (4). */
    EINTR(4, "Interrupted system call"),
    /** Input/output error (5). */
    EIO(5, "Input/output error"),
    /** No such device or address (6). */
    ENXIO(6, "No such device or address"),
    /** Argument list too long (7). */
    E2BIG(7, "Argument list too long"),
    /** Exec format error (8). */
    ENOEXEC(8, "Exec format error"),
    /** Bad file descriptor (9). */
    EBADF(9, "Bad file descriptor"),
    /** No child processes (10). */
    ECHILD(10, "No child processes"),
    /** Resource temporarily unavailable (11). */
    EAGAIN(11, "Resource temporarily unavailable"),
    /** Cannot allocate memory (12). */
    ENOMEM(12, "Cannot allocate memory"),
    /** Permission denied (13). */
    EACCES(13, "Permission denied"),
    /** Bad address (14). */
    EFAULT(14, "Bad address"),
    /** Block device required (15). */
    ENOTBLK(15, "Block device required"),
    /** Device or resource busy (16). */
    EBUSY(16, "Device or resource busy"),
    /** File exists (17). */
    EEXIST(17, "File exists"),
    /** Invalid cross-device link (18). */
    EXDEV(18, "Invalid cross-device link"),
    /** No such device (19). */
    ENODEV(19, "No such device"),
    /** Not a directory (20). */
    ENOTDIR(20, "Not a directory"),
    /** Is a directory (21). */
    EISDIR(21, "Is a directory"),
    /** Invalid argument (22). */
    EINVAL(22, "Invalid argument"),
    /** Too many open files in system (23). */
    ENFILE(23, "Too many open files in system"),
    /** Too many open files (24). */
    EMFILE(24, "Too many open files"),
    /** Inappropriate ioctl for device (25). */
    ENOTTY(25, "Inappropriate ioctl for device"),
    /** Text file busy (26). */
    ETXTBSY(26, "Text file busy"),
    /** File too large (27). */
    EFBIG(27, "File too large"),
    /** No space left on device (28). */
    ENOSPC(28, "No space left on device"),
    /** Illegal seek (29). */
    ESPIPE(29, "Illegal seek"),
    /** Read-only file system (30). */
    EROFS(30, "Read-only file system"),
    /** Too many links (31). */
    EMLINK(31, "Too many links"),
    /** Broken pipe (32). */
    EPIPE(32, "Broken pipe"),
    /** Numerical argument out of domain (33). */
    EDOM(33, "Numerical argument out of domain"),
    /** Numerical result out of range (34). */
    ERANGE(34, "Numerical result out of range"),
    /** Resource deadlock avoided (35). */
    EDEADLOCK(35, "Resource deadlock avoided"),
    /** File name too long (36). */
    ENAMETOOLONG(36, "File name too long"),
    /** No locks available (37). */
    ENOLCK(37, "No locks available"),
    /** Function not implemented (38). */
    ENOSYS(38, "Function not implemented"),
    /** Directory not empty (39). */
    ENOTEMPTY(39, "Directory not empty"),
    /** Too many levels of symbolic links (40). */
    ELOOP(40, "Too many levels of symbolic links"),
    /** No message of desired type (42). */
    ENOMSG(42, "No message of desired type"),
    /** Identifier removed (43). */
    EIDRM(43, "Identifier removed"),
    /** Channel number out of range (44). */
    ECHRNG(44, "Channel number out of range"),
    /** Level 2 not synchronized (45). */
    EL2NSYNC(45, "Level 2 not synchronized"),
    /** Level 3 halted (46). */
    EL3HLT(46, "Level 3 halted"),
    /** Level 3 reset (47). */
    EL3RST(47, "Level 3 reset"),
    /** Link number out of range (48). */
    ELNRNG(48, "Link number out of range"),
    /** Protocol driver not attached (49). */
    EUNATCH(49, "Protocol driver not attached"),
    /** No CSI structure available (50). */
    ENOCSI(50, "No CSI structure available"),
    /** Level 2 halted (51). */
    EL2HLT(51, "Level 2 halted"),
    /** Invalid exchange (52). */
    EBADE(52, "Invalid exchange"),
    /** Invalid request descriptor (53). */
    EBADR(53, "Invalid request descriptor"),
    /** Exchange full (54). */
    EXFULL(54, "Exchange full"),
    /** No anode (55). */
    ENOANO(55, "No anode"),
    /** Invalid request code (56). */
    EBADRQC(56, "Invalid request code"),
    /** Invalid slot (57). */
    EBADSLT(57, "Invalid slot"),
    /** Bad font file format (59). */
    EBFONT(59, "Bad font file format"),
    /** Device not a stream (60). */
    ENOSTR(60, "Device not a stream"),
    /** No data available (61). */
    ENODATA(61, "No data available"),
    /** Timer expired (62). */
    ETIME(62, "Timer expired"),
    /** Out of streams resources (63). */
    ENOSR(63, "Out of streams resources"),
    /** Machine is not on the network (64). */
    ENONET(64, "Machine is not on the network"),
    /** Package not installed (65). */
    ENOPKG(65, "Package not installed"),
    /** Object is remote (66). */
    EREMOTE(66, "Object is remote"),
    /** Link has been severed (67). */
    ENOLINK(67, "Link has been severed"),
    /** Advertise error (68). */
    EADV(68, "Advertise error"),
    /** Srmount error (69). */
    ESRMNT(69, "Srmount error"),
    /** Communication error on send (70). */
    ECOMM(70, "Communication error on send"),
    /** Protocol error (71). */
    EPROTO(71, "Protocol error"),
    /** Multihop attempted (72). */
    EMULTIHOP(72, "Multihop attempted"),
    /** RFS specific error (73). */
    EDOTDOT(73, "RFS specific error"),
    /** Bad message (74). */
    EBADMSG(74, "Bad message"),
    /** Value too large for defined data type (75). */
    EOVERFLOW(75, "Value too large for defined data type"),
    /** Name not unique on network (76). */
    ENOTUNIQ(76, "Name not unique on network"),
    /** File descriptor in bad state (77). */
    EBADFD(77, "File descriptor in bad state"),
    /** Remote address changed (78). */
    EREMCHG(78, "Remote address changed"),
    /** Can not access a needed shared library (79). */
    ELIBACC(79, "Can not access a needed shared library"),
    /** Accessing a corrupted shared library (80). */
    ELIBBAD(80, "Accessing a corrupted shared library"),
    /** .lib section in a.out corrupted (81). */
    ELIBSCN(81, ".lib section in a.out corrupted"),
    /** Attempting to link in too many shared libraries (82). */
    ELIBMAX(82, "Attempting to link in too many shared libraries"),
    /** Cannot exec a shared library directly (83). */
    ELIBEXEC(83, "Cannot exec a shared library directly"),
    /** Invalid or incomplete multibyte or wide character (84). */
    EILSEQ(84, "Invalid or incomplete multibyte or wide character"),
    /** Interrupted system call should be restarted (85). */
    ERESTART(85, "Interrupted system call should be restarted"),
    /** Streams pipe error (86). */
    ESTRPIPE(86, "Streams pipe error"),
    /** Too many users (87). */
    EUSERS(87, "Too many users"),
    /** Socket operation on non-socket (88). */
    ENOTSOCK(88, "Socket operation on non-socket"),
    /** Destination address required (89). */
    EDESTADDRREQ(89, "Destination address required"),
    /** Message too long (90). */
    EMSGSIZE(90, "Message too long"),
    /** Protocol wrong type for socket (91). */
    EPROTOTYPE(91, "Protocol wrong type for socket"),
    /** Protocol not available (92). */
    ENOPROTOOPT(92, "Protocol not available"),
    /** Protocol not supported (93). */
    EPROTONOSUPPORT(93, "Protocol not supported"),
    /** Socket type not supported (94). */
    ESOCKTNOSUPPORT(94, "Socket type not supported"),
    /** Operation not supported (95). */
    ENOTSUP(95, "Operation not supported"),
    /** Protocol family not supported (96). */
    EPFNOSUPPORT(96, "Protocol family not supported"),
    /** Address family not supported by protocol (97). */
    EAFNOSUPPORT(97, "Address family not supported by protocol"),
    /** Address already in use (98). */
    EADDRINUSE(98, "Address already in use"),
    /** Cannot assign requested address (99). */
    EADDRNOTAVAIL(99, "Cannot assign requested address"),
    /** Network is down (100). */
    ENETDOWN(100, "Network is down"),
    /** Network is unreachable (101). */
    ENETUNREACH(101, "Network is unreachable"),
    /** Network dropped connection on reset (102). */
    ENETRESET(102, "Network dropped connection on reset"),
    /** Software caused connection abort (103). */
    ECONNABORTED(103, "Software caused connection abort"),
    /** Connection reset by peer (104). */
    ECONNRESET(104, "Connection reset by peer"),
    /** No buffer space available (105). */
    ENOBUFS(105, "No buffer space available"),
    /** Transport endpoint is already connected (106). */
    EISCONN(106, "Transport endpoint is already connected"),
    /** Transport endpoint is not connected (107). */
    ENOTCONN(107, "Transport endpoint is not connected"),
    /** Cannot send after transport endpoint shutdown (108). */
    ESHUTDOWN(108, "Cannot send after transport endpoint shutdown"),
    /** Too many references: cannot splice (109). */
    ETOOMANYREFS(109, "Too many references: cannot splice"),
    /** Connection timed out (110). */
    ETIMEDOUT(110, "Connection timed out"),
    /** Connection refused (111). */
    ECONNREFUSED(111, "Connection refused"),
    /** Host is down (112). */
    EHOSTDOWN(112, "Host is down"),
    /** No route to host (113). */
    EHOSTUNREACH(113, "No route to host"),
    /** Operation already in progress (114). */
    EALREADY(114, "Operation already in progress"),
    /** Operation now in progress (115). */
    EINPROGRESS(115, "Operation now in progress"),
    /** Stale file handle (116). */
    ESTALE(116, "Stale file handle"),
    /** Structure needs cleaning (117). */
    EUCLEAN(117, "Structure needs cleaning"),
    /** Not a XENIX named type file (118). */
    ENOTNAM(118, "Not a XENIX named type file"),
    /** No XENIX semaphores available (119). */
    ENAVAIL(119, "No XENIX semaphores available"),
    /** Is a named type file (120). */
    EISNAM(120, "Is a named type file"),
    /** Remote I/O error (121). */
    EREMOTEIO(121, "Remote I/O error"),
    /** Disk quota exceeded (122). */
    EDQUOT(122, "Disk quota exceeded"),
    /** No medium found (123). */
    ENOMEDIUM(123, "No medium found"),
    /** Wrong medium type (124). */
    EMEDIUMTYPE(124, "Wrong medium type"),
    /** Operation canceled (125). */
    ECANCELED(125, "Operation canceled"),
    /** Required key not available (126). */
    ENOKEY(126, "Required key not available"),
    /** Key has expired (127). */
    EKEYEXPIRED(127, "Key has expired"),
    /** Key has been revoked (128). */
    EKEYREVOKED(128, "Key has been revoked"),
    /** Key was rejected by service (129). */
    EKEYREJECTED(129, "Key was rejected by service"),
    /** Owner died (130). */
    EOWNERDEAD(130, "Owner died"),
    /** State not recoverable (131). */
    ENOTRECOVERABLE(131, "State not recoverable"),
    /** Operation not possible due to RF-kill (132). */
    ERFKILL(132, "Operation not possible due to RF-kill"),
    /** A value this table does not know. */
    EUNKNOWN(-1, "Unknown error");

    private static final Errno[] BY_NUMBER = new Errno[134];

    static {
        for (Errno e : values()) {
            if (e.number >= 0 && e.number < BY_NUMBER.length) {
                BY_NUMBER[e.number] = e;
            }
        }
    }

    private final int number;
    private final String description;

    Errno(int number, String description) {
        this.number = number;
        this.description = description;
    }

    /** {@return the errno number} */
    public int number() {
        return number;
    }

    /** {@return the strerror(3) text, e.g. "No such device"} */
    public String description() {
        return description;
    }

    /**
     * The constant for {@code number}; negative values (kernel style {@code -ENODEV}) are accepted.
     *
     * @param number an errno value, positive or negated
     * @return its constant, or {@link #EUNKNOWN} when this table does not know it
     */
    public static Errno of(int number) {
        int n = Math.abs(number);
        if (n < BY_NUMBER.length && BY_NUMBER[n] != null) {
            return BY_NUMBER[n];
        }
        return EUNKNOWN;
    }

    /** {@return the name and the strerror(3) text for messages, e.g. "ENODEV (No such device)"} */
    public String describe() {
        return name() + " (" + description + ")";
    }
}
