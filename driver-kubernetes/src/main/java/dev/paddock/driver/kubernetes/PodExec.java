package dev.paddock.driver.kubernetes;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.ExecHandle;
import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.ExecRequest;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.ContainerResource;
import io.fabric8.kubernetes.client.dsl.ExecWatch;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutionException;

/**
 * Runs commands in a sandbox pod through the Kubernetes exec API (pods/exec, the API server relaying to the
 * kubelet). Every command is started by a small shell prologue that records its pid under
 * {@code /tmp/.paddock-exec}, so the driver can kill it later: the exec API itself has no signal. Stdin is the
 * request's bytes: the exec API (v4 channel protocol) cannot send end-of-file, so they are first stored in a file
 * of known length (copied with {@code head -c}) and the command reads that file.
 */
final class PodExec {
    static final String EXEC_DIR = "/tmp/.paddock-exec";
    /**
     * Where a pod taken from a warm pool keeps its sandbox's environment (written through exec at the claim): a line
     * that puts {@code env NAME=value …} before the command. Every command, foreground or background, starts with it,
     * so what only the request knows reaches the commands without being in the pod's spec. Pods made for one sandbox
     * have none.
     */
    static final String ENV_FILE = "/tmp/.paddock-env";
    /** Sourced after the command's words are set, before setsid: the sandbox's variables, then the request's own. */
    static final String SOURCE_ENV = "[ -r " + ENV_FILE + " ] && . " + ENV_FILE + "; ";
    /**
     * $1 = token, $2 = cwd, $3 = 1 when a stdin file was stored; the rest is the command (with env's assignments).
     * The command runs as a child in a session of its own (setsid, where the image has it) so a kill reaches what it
     * started; the shell waits, passes its exit status on and removes the pid file. Its stdin comes through fd 3: the
     * shell gives a background command /dev/null before any redirection of its own, so {@code <&0} would read that.
     */
    private static final String PROLOGUE = "d=" + EXEC_DIR + "; t=$1; c=$2; i=$3; shift 3; mkdir -p $d || exit 125; "
            + "cd -- \"$c\" 2>/dev/null || { echo \"paddock: no such directory: $c\" >&2; exit 126; }; "
            + "if [ \"$i\" = 1 ]; then exec 3<$d/$t.in; rm -f $d/$t.in; else exec 3</dev/null; fi; "
            + SOURCE_ENV
            + "command -v setsid >/dev/null 2>&1 && set -- setsid \"$@\"; "
            + "\"$@\" <&3 3<&- & p=$!; exec 3<&-; echo $p > $d/$t; wait $p; s=$?; rm -f $d/$t; exit $s";
    private static final String STORE_STDIN = "mkdir -p " + EXEC_DIR + " && head -c \"$2\" > " + EXEC_DIR + "/$1.in";

    private final KubernetesClient client;
    private final String namespace;
    private final String pod;

    PodExec(KubernetesClient client, String namespace, String pod) {
        this.client = client;
        this.namespace = namespace;
        this.pod = pod;
    }

    /** Starts the request's command; the handle enforces its timeout. */
    ExecHandle start(ExecRequest request, ExecOutput output) {
        String token = UUID.randomUUID().toString();
        boolean stdin = request.stdin() != null && request.stdin().length > 0;
        if (stdin) storeStdin(token, request.stdin());
        List<String> argv = new ArrayList<>(List.of("/bin/sh", "-c", PROLOGUE, "paddock-exec", token, request.cwd(), stdin ? "1" : "0"));
        if (!request.env().isEmpty()) {
            argv.add("env");
            request.env().forEach((k, v) -> argv.add(k + "=" + v));
        }
        argv.addAll(request.argv());
        ExecWatch watch = open(argv, null, new Forward(output::stdout), new Forward(output::stderr));
        return new PodExecHandle(this, token, watch, request.timeout());
    }

    /** Stores bytes for a command's stdin as {@code EXEC_DIR/<token>.in}. */
    void storeStdin(String token, byte[] bytes) {
        Result stored = run(List.of("/bin/sh", "-c", STORE_STDIN, "store", token, Integer.toString(bytes.length)), new ByteArrayInputStream(bytes));
        if (stored.exitCode() != 0) throw failed("storing the command's stdin", stored);
    }

    /** Runs a short command to its end and returns its exit code and output (stdout kept, stderr kept up to a few KiB). */
    Result run(List<String> argv, InputStream stdin) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Result r = stream(argv, stdin, out);
        return new Result(r.exitCode(), out.toByteArray(), r.stderr());
    }

    /** Runs a command whose stdout goes to {@code out}; answers its exit code and stderr. */
    Result stream(List<String> argv, InputStream stdin, OutputStream out) {
        Capped err = new Capped(4096);
        int code = await(open(argv, stdin, out, err));
        return new Result(code, new byte[0], err.text());
    }

    ExecWatch open(List<String> argv, InputStream stdin, OutputStream out, OutputStream err) {
        try {
            ContainerResource container = client.pods().inNamespace(namespace).withName(pod).inContainer(SandboxObjects.CONTAINER);
            var io = stdin != null ? container.readingInput(stdin) : container;
            return io.writingOutput(out).writingError(err).exec(argv.toArray(String[]::new));
        } catch (KubernetesClientException e) {
            throw new PaddockException(ErrorCode.CLUSTER_API_ERROR, "cannot run a command in pod " + pod + ": " + e.getMessage(), e);
        }
    }

    private int await(ExecWatch watch) {
        try (watch) {
            return watch.exitCode().get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PaddockException(ErrorCode.INTERRUPTED, "interrupted while running a command in pod " + pod);
        } catch (ExecutionException e) {
            throw new PaddockException(ErrorCode.SANDBOX_NOT_RUNNING, "the command in pod " + pod + " could not run: " + e.getCause().getMessage(), e.getCause());
        }
    }

    /** Kills a command started by {@link #start} (and its process group, when it leads one). */
    void kill(String token) {
        String script = "p=$(cat " + EXEC_DIR + "/$1 2>/dev/null) || exit 0; kill -s KILL -- -$p 2>/dev/null; kill -s KILL $p 2>/dev/null; rm -f " + EXEC_DIR + "/$1; exit 0";
        try {
            run(List.of("/bin/sh", "-c", script, "kill", token), null);
        } catch (PaddockException gone) {
            // the pod is gone: so is the command
        }
    }

    private PaddockException failed(String what, Result r) {
        return new PaddockException(ErrorCode.EXEC_FAILED, what + " in pod " + pod + " failed with exit code " + r.exitCode() + ": " + r.stderr());
    }

    record Result(int exitCode, byte[] stdout, String stderr) {}

    /** Passes a stream's bytes to an {@link ExecOutput} callback as they arrive. */
    private static final class Forward extends OutputStream {
        private final Sink sink;

        Forward(Sink sink) {
            this.sink = sink;
        }

        @Override
        public void write(int b) {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            sink.accept(b, off, len);
        }
    }

    @FunctionalInterface
    private interface Sink {
        void accept(byte[] b, int off, int len);
    }

    /** Keeps the first {@code max} bytes of a stream (error messages). */
    static final class Capped extends OutputStream {
        private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
        private final int max;

        Capped(int max) {
            this.max = max;
        }

        @Override
        public synchronized void write(int b) {
            if (kept.size() < max) kept.write(b);
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            kept.write(b, off, Math.min(len, Math.max(0, max - kept.size())));
        }

        synchronized byte[] bytes() {
            return kept.toByteArray();
        }

        synchronized String text() {
            return kept.toString(StandardCharsets.UTF_8).strip();
        }
    }
}
