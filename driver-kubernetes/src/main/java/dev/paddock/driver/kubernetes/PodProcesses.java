package dev.paddock.driver.kubernetes;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.spi.ProcessInfo;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;

/**
 * Background processes of a sandbox pod, kept by the pod itself so that they outlive the exec stream that started
 * them and the server that asked (a restarted server, or another replica, lists them the same way). The exec API has
 * no process that outlives its stream, so each start leaves a small supervisor shell in the pod: it runs the command
 * in a session of its own (setsid, where the image has it), its output to a file, and writes the exit status when the
 * command ends. Everything lives under {@link #DIR} in the pod's {@code /tmp}, so it ends with the pod (terminate,
 * suspend) like the processes themselves.
 *
 * <p>The files are the sandbox's own and it may rewrite them: what is read back is checked (numbers only, argv as hex)
 * and can only misreport the sandbox's own processes.
 */
final class PodProcesses {
    static final String DIR = "/tmp/.paddock-proc";
    /** Of a log or process-table script: the pid names no process started here. */
    private static final int UNKNOWN = 3;
    private static final int MAX_LISTING = 4 << 20;

    /**
     * $1 = cwd, $2 = stdin token (or empty), $3 = how many of the following words are env's assignments; the rest is
     * the command. Leaves a supervisor in the background, waits for it to write the command's pid and prints it. Per
     * pid: {@code .argv} (NUL-separated, without env's words), {@code .start} (epoch seconds), {@code .log} (stdout and
     * stderr), {@code .exit} once it ended. A reused pid's old files are replaced. The supervisor opens the command's
     * stdin and log itself, before it starts the command, so renaming the log and removing the stdin file cannot race
     * the command opening them.
     */
    private static final String START = "d=" + DIR + "; c=$1; i=$2; k=$3; shift 3; mkdir -p $d || exit 125; "
            + "cd -- \"$c\" 2>/dev/null || { echo \"paddock: no such directory: $c\" >&2; exit 126; }; "
            + "t=$d/new.$$; in=/dev/null; [ -n \"$i\" ] && in=" + PodExec.EXEC_DIR + "/$i.in; "
            + "j=0; for a in \"$@\"; do [ $j -ge $k ] && printf '%s\\0' \"$a\"; j=$((j+1)); done > $t.argv; "
            + "[ $k -gt 0 ] && set -- env \"$@\"; " + PodExec.SOURCE_ENV
            + "command -v setsid >/dev/null 2>&1 && set -- setsid \"$@\"; "
            + "( exec 3<\"$in\" 4>$t.log; \"$@\" <&3 >&4 2>&4 3<&- 4>&- & p=$!; exec 3<&- 4>&-; "
            + "rm -f $d/$p.exit $d/$p.log $d/$p.argv; [ \"$in\" = /dev/null ] || rm -f \"$in\"; "
            + "date +%s > $d/$p.start; mv $t.log $d/$p.log; mv $t.argv $d/$p.argv; echo $p > $t.pid; "
            + "wait $p; echo $? > $d/$p.exit.new; mv $d/$p.exit.new $d/$p.exit ) </dev/null >/dev/null 2>&1 & "
            + "n=0; while [ ! -s $t.pid ]; do n=$((n+1)); [ $n -gt 3000 ] && exit 124; sleep 0.01; done; cat $t.pid; rm -f $t.pid";
    /** One line per process: pid, start (epoch seconds), 1 while it runs, exit status or '-', argv in hex. */
    private static final String LIST = "cd " + DIR + " 2>/dev/null || exit 0; for f in *.argv; do p=${f%.argv}; "
            + "case $p in ''|*[!0-9]*) continue;; esac; [ -f \"$f\" ] || continue; "
            + "e=$(head -c 12 $p.exit 2>/dev/null); case $e in ''|*[!0-9]*) e=-;; esac; "
            + "s=$(head -c 20 $p.start 2>/dev/null); case $s in ''|*[!0-9]*) s=0;; esac; "
            + "r=0; [ $e = - ] && kill -0 $p 2>/dev/null && r=1; "
            + "printf '%s %s %s %s ' $p $s $r $e; head -c 65536 \"$f\" | od -An -v -tx1 | tr -d ' \\n'; echo; done";
    /** $1 = pid, $2 = offset, $3 = max bytes. */
    private static final String LOGS = "f=" + DIR + "/$1; [ -f $f.argv ] || exit " + UNKNOWN + "; "
            + "[ -f $f.log ] || exit 0; tail -c +$(($2+1)) $f.log | head -c $3";
    /** $1 = pid, $2 = signal number; to the process's group where it leads one, else to the process. */
    private static final String SIGNAL = "f=" + DIR + "/$1; [ -f $f.argv ] || exit " + UNKNOWN + "; [ -f $f.exit ] && exit 0; "
            + "kill -$2 -$1 2>/dev/null || kill -$2 $1 2>/dev/null; exit 0";

    private final PodExec exec;

    PodProcesses(PodExec exec) {
        this.exec = exec;
    }

    ProcessInfo start(ExecRequest request) {
        String stdinToken = "";
        if (request.stdin() != null && request.stdin().length > 0) {
            stdinToken = UUID.randomUUID().toString();
            exec.storeStdin(stdinToken, request.stdin());
        }
        List<String> argv = new ArrayList<>(List.of("/bin/sh", "-c", START, "paddock-start", request.cwd(), stdinToken,
                Integer.toString(request.env().size())));
        request.env().forEach((k, v) -> argv.add(k + "=" + v));
        argv.addAll(request.argv());
        Instant started = Instant.now();
        PodExec.Result r = exec.run(argv, null);
        if (r.exitCode() == 126) throw new PaddockException(ErrorCode.INVALID_PATH, r.stderr().replace("paddock: ", ""));
        String out = new String(r.stdout(), StandardCharsets.UTF_8).strip();
        if (r.exitCode() != 0 || !out.matches("[1-9][0-9]{0,9}")) {
            throw new PaddockException(ErrorCode.EXEC_FAILED, "starting a background process failed with exit code " + r.exitCode() + ": " + r.stderr());
        }
        return new ProcessInfo(Long.parseLong(out), request.argv(), started, true, null);
    }

    List<ProcessInfo> list() {
        PodExec.Capped out = new PodExec.Capped(MAX_LISTING);
        PodExec.Result r = exec.stream(List.of("/bin/sh", "-c", LIST), null, out);
        if (r.exitCode() != 0) throw new PaddockException(ErrorCode.EXEC_FAILED, "listing background processes failed: " + r.stderr());
        List<ProcessInfo> processes = new ArrayList<>();
        for (String line : new String(out.bytes(), StandardCharsets.UTF_8).split("\n")) {
            ProcessInfo p = parse(line);
            if (p != null) processes.add(p);
        }
        return processes;
    }

    /** A line of {@link #LIST}, or null for one the sandbox garbled (it can only hide its own process). */
    static ProcessInfo parse(String line) {
        String[] f = line.strip().split(" ", -1);
        if (f.length != 5 || !f[0].matches("[1-9][0-9]{0,9}") || !f[1].matches("[0-9]{1,19}") || !f[2].matches("[01]")
                || !(f[3].equals("-") || f[3].matches("[0-9]{1,9}")) || !f[4].matches("([0-9a-f]{2})*")) {
            return null;
        }
        List<String> argv = new ArrayList<>();
        String joined = new String(HexFormat.of().parseHex(f[4]), StandardCharsets.UTF_8);
        if (!joined.isEmpty()) argv.addAll(List.of(joined.substring(0, joined.length() - (joined.endsWith("\0") ? 1 : 0)).split("\0", -1)));
        boolean running = f[2].equals("1");
        Integer exit = running ? null : f[3].equals("-") ? -1 : Integer.valueOf(f[3]);
        return new ProcessInfo(Long.parseLong(f[0]), argv, Instant.ofEpochSecond(Long.parseLong(f[1])), running, exit);
    }

    byte[] logs(long pid, long offset, int maxBytes) {
        if (offset < 0 || maxBytes < 0) throw new PaddockException(ErrorCode.INVALID_RANGE, "offset and max bytes must not be negative");
        known(pid);
        PodExec.Capped out = new PodExec.Capped(maxBytes);
        PodExec.Result r = exec.stream(List.of("/bin/sh", "-c", LOGS, "logs", Long.toString(pid), Long.toString(offset), Integer.toString(maxBytes)),
                null, out);
        if (r.exitCode() == UNKNOWN) throw PaddockException.notFound("process", Long.toString(pid));
        if (r.exitCode() != 0) throw new PaddockException(ErrorCode.EXEC_FAILED, "reading a background process's output failed: " + r.stderr());
        return out.bytes();
    }

    void signal(long pid, int signal) {
        if (signal < 1 || signal > 64) throw new PaddockException(ErrorCode.INVALID_SIGNAL, "signal must be between 1 and 64, got " + signal);
        known(pid);
        PodExec.Result r = exec.run(List.of("/bin/sh", "-c", SIGNAL, "signal", Long.toString(pid), Integer.toString(signal)), null);
        if (r.exitCode() == UNKNOWN) throw PaddockException.notFound("process", Long.toString(pid));
        if (r.exitCode() != 0) throw new PaddockException(ErrorCode.EXEC_FAILED, "signalling a background process failed: " + r.stderr());
    }

    private static void known(long pid) {
        if (pid <= 0) throw PaddockException.notFound("process", Long.toString(pid));
    }
}
