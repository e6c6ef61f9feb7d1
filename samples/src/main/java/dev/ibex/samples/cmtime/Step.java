package dev.ibex.samples.cmtime;

/** cmtime's steps, in order, with the names its table prints. */
enum Step {
    CREATE_ID("create id"),
    BIND("bind addr"),
    RESOLVE_ADDR("resolve addr"),
    RESOLVE_ROUTE("resolve route"),
    CREATE_QP("create qp"),
    CONNECT("connect"),
    DISCONNECT("disconnect"),
    DESTROY("destroy");

    private final String label;

    Step(String label) {
        this.label = label;
    }

    String label() {
        return label;
    }
}
