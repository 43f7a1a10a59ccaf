package dev.paddock.bench;

/** Runs an operation n times and keeps each run's milliseconds. */
final class Samples {
    private Samples() {}

    interface Op {
        void run() throws Exception;
    }

    /** An operation that measures only part of itself (not its clean-up) and returns those milliseconds. */
    interface TimedPart {
        double run() throws Exception;
    }

    static double[] of(int n, Op op) throws Exception {
        double[] ms = new double[n];
        for (int i = 0; i < n; i++) {
            long t0 = System.nanoTime();
            op.run();
            ms[i] = (System.nanoTime() - t0) / 1e6;
        }
        return ms;
    }

    static double[] timedPart(int n, TimedPart op) throws Exception {
        double[] ms = new double[n];
        for (int i = 0; i < n; i++) ms[i] = op.run();
        return ms;
    }
}
