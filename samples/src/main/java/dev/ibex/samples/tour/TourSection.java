package dev.ibex.samples.tour;

/**
 * One section of {@code ./ibex demo}: a few readable lines, with figures, showing one thing Ibex does. A section
 * runs on soft-roce over loopback (no root, no RDMA device), sets up and tears down everything it uses, and throws
 * when what it shows did not happen. To add one, implement this and list it in {@link TourSections#ALL}.
 */
public interface TourSection {
    /** The name {@code --only} selects it by: one lowercase word. */
    String name();

    /** What it shows, in a few words (its heading). */
    String title();

    /** Runs it, printing its lines through {@code tour}. */
    void run(TourContext tour) throws Exception;
}
