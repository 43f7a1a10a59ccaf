package dev.paddock.host;

import java.time.Duration;

/**
 * How long the sweeper rests after a pass. A pass visits every sandbox this host owns, so it takes longer the more
 * there are; rested only the sweep interval, a host with thousands of sandboxes would sweep without pause and keep a
 * core busy that creates and execs need. The rest is therefore the sweep interval or {@link #REST_PER_WORK} times
 * the pass, whichever is longer: the sweeper uses at most a fifth of one core, and the lifetime and idle policy act
 * that much later on a full host.
 */
final class SweepPause {
    static final int REST_PER_WORK = 4;
    private final long intervalMillis;

    SweepPause(Duration interval) {
        this.intervalMillis = interval.toMillis();
    }

    /** The rest before the next pass, in milliseconds, after a pass that took {@code pass}. */
    long after(Duration pass) {
        return Math.max(intervalMillis, pass.toMillis() * REST_PER_WORK);
    }
}
