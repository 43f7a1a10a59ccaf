package dev.paddock.driver.bwrap.cgroup;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** The cgroup(s) of one sandbox: where its processes are counted, limited, frozen and killed. */
public interface SandboxCgroup {
    /** The {@code cgroup.procs} files a process writes its pid to in order to join (one per v1 hierarchy). */
    List<Path> procsFiles();

    /**
     * The files a single-threaded process writes "0" to in order to move itself in: v1 {@code tasks} (moving the
     * calling thread skips the kernel's global threadgroup lock and its RCU grace period), v2 {@code cgroup.procs}.
     */
    List<Path> selfJoinFiles();

    boolean exists();

    /** Controller (or "unified") to directory; stored with the sandbox so a restarted host finds the same groups. */
    Map<String, Path> dirs();

    /** Freezes every process and returns once the kernel reports the group frozen. */
    void freeze();

    /** Thaws and returns once the kernel reports the group running. */
    void thaw();

    boolean frozen();

    /** Whether a live process is in the group: one that exited and waits to be reaped does not count. */
    boolean populated();

    /** SIGKILLs every process in the group and waits until it is empty. */
    void killAll();

    /** Removes the (empty) group directories; a group that is already gone is fine. */
    void remove();

    /** How many processes the memory limit has killed so far. */
    long oomKills();

    long memoryBytes();

    /** The memory limit in bytes, or -1 when unlimited. */
    long memoryLimitBytes();

    int pids();

    /** CPU time used, or -1 when this hierarchy does not account it. */
    long cpuNanos();
}
