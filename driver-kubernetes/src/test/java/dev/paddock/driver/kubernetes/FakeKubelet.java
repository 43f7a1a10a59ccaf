package dev.paddock.driver.kubernetes;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A kubelet for fabric8's mock API server, for tests: it watches pods, "runs" each new one and marks it Running
 * with an address, and serves the exec API (the v4 channel protocol over a WebSocket) by running the command for
 * real with bwrap as the pod's uid: the pod's claim is a host directory (its {@code workspace} and {@code outputs}
 * bound at {@code /workspace} and {@code /mnt/session/outputs}), its {@code /tmp} one directory per pod, the host's
 * {@code /usr} read-only, other emptyDir volumes one directory each; execs get the container's environment. Init
 * containers run for real the same way before the pod counts as Running. A pod that a NetworkPolicy selects for
 * egress gets a network namespace of its own: with nothing in it, or (where a rule allows the registered
 * {@link Peer}, the egress proxy's pods and port) with only a way to that peer ({@link PodNetwork}); one that no
 * policy selects shares the host's network, as an unfenced pod would. Deleting a pod kills its processes; the claim's
 * directory stays, as a volume does.
 */
final class FakeKubelet implements AutoCloseable {
    static final String USER_AGENT = "fake-kubelet";
    /** Images under this prefix cannot be pulled: their pods wait in ErrImagePull, as a real kubelet reports it. */
    static final String UNPULLABLE = "unpullable.example/";
    /** The environment variable that marks a pod's processes. */
    static final String MARKER = "FAKE_KUBELET_POD";
    private static final Pattern EXEC = Pattern.compile("/api/v1/namespaces/([^/]+)/pods/([^/?]+)/exec\\?(.*)");

    private final Path root;
    private final KubernetesCrudDispatcher crud = new KubernetesCrudDispatcher();
    private final Map<String, RunningPod> pods = new ConcurrentHashMap<>();
    private final AtomicInteger addresses = new AtomicInteger(10);
    private final ClaimDisks disks = new ClaimDisks();
    /** Every pod cgroup made, removed again at the latest on close (a pod replaced under the same name is not stopped). */
    private final List<PodCgroup> cgroups = new java.util.concurrent.CopyOnWriteArrayList<>();
    private KubernetesClient client;
    private Watch watch;
    final List<String> runtimeClasses = new ArrayList<>();
    /** The one peer a NetworkPolicy may open (the egress proxy's pods): null, or where pods dial it and where it is. */
    private volatile Peer peer;

    /** A peer selected by {@code namespace} and {@code labels} on {@code hostPort}; pods dial it at 127.0.0.1:{@code podPort}. */
    record Peer(int podPort, int hostPort, String namespace, Map<String, String> labels) {}
    /** "METHOD path" of every request that did not come from this kubelet: what the driver asked the API server. */
    final List<String> driverRequests = new java.util.concurrent.CopyOnWriteArrayList<>();

    FakeKubelet(Path root) {
        this.root = root;
    }

    /** The mock server's dispatcher: exec requests are served here, everything else by fabric8's CRUD store. */
    Dispatcher dispatcher() {
        return new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest request) {
                String agent = request.getHeader("User-Agent");
                if (agent == null || !agent.startsWith(USER_AGENT)) driverRequests.add(request.getMethod() + " " + request.getPath());
                Matcher m = EXEC.matcher(request.getPath());
                if (m.matches()) {
                    RunningPod pod = pods.get(m.group(1) + "/" + m.group(2));
                    if (pod == null) return new MockResponse().setResponseCode(404).setBody("{\"kind\":\"Status\",\"status\":\"Failure\",\"code\":404}");
                    return new MockResponse().withWebSocketUpgrade(new ExecSession(pod, commandOf(m.group(3)), m.group(3).contains("stdin=true")));
                }
                return crud.dispatch(request);
            }
        };
    }

    /** Starts watching pods of {@code namespace} through {@code client} (a client of the same mock server). */
    void start(KubernetesClient client, String namespace) {
        this.client = client;
        this.watch = client.pods().inNamespace(namespace).watch(new Watcher<>() {
            @Override
            public void eventReceived(Action action, Pod pod) {
                try {
                    switch (action) {
                        case ADDED -> run(pod);
                        case DELETED -> stop(pod);
                        default -> { }
                    }
                } catch (RuntimeException e) {
                    // what went wrong shows on the pod, as a kubelet reports it, rather than in a watcher's log
                    pod.setStatus(new PodStatusBuilder().withPhase("Failed").withReason("KubeletError").withMessage(e.toString()).build());
                    client.pods().inNamespace(pod.getMetadata().getNamespace()).resource(pod).updateStatus();
                }
            }

            @Override
            public void onClose(WatcherException cause) {}
        });
    }

    /** Registers the peer pods may reach where their NetworkPolicy allows it (the cluster's route to Paddock's egress proxy). */
    void egressPeer(Peer p) {
        this.peer = p;
    }

    /** How many commands are running in a pod right now. */
    int running(String namespace, String pod) {
        RunningPod p = pods.get(namespace + "/" + pod);
        return p == null ? 0 : p.processes.size();
    }

    /** The bwrap command line an exec of {@code argv} in a running pod starts. */
    List<String> commandLine(String pod, List<String> argv) {
        return pods.values().stream().filter(p -> p.name.equals(pod)).findFirst().orElseThrow().bwrap(argv);
    }

    /** The host directory standing for a claim. */
    Path volume(String claim) {
        return root.resolve("volumes").resolve(claim);
    }

    private void run(Pod pod) {
        String key = pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
        if (pods.containsKey(key)) return;
        synchronized (runtimeClasses) {
            runtimeClasses.add(pod.getSpec().getRuntimeClassName());
        }
        String image = pod.getSpec().getContainers().getFirst().getImage();
        if (image.startsWith(UNPULLABLE)) {
            pod.setStatus(new PodStatusBuilder().withPhase("Pending")
                    .withContainerStatuses(new ContainerStatusBuilder().withName(SandboxObjects.CONTAINER).withReady(false)
                            .withNewState().withNewWaiting().withReason("ErrImagePull").withMessage("pull access denied for " + image).endWaiting().endState().build())
                    .build());
            client.pods().inNamespace(pod.getMetadata().getNamespace()).resource(pod).updateStatus();
            return;
        }
        String claim = pod.getSpec().getVolumes().stream().map(Volume::getPersistentVolumeClaim).filter(c -> c != null)
                .findFirst().orElseThrow().getClaimName();
        long uid = pod.getSpec().getSecurityContext().getRunAsUser();
        Path volume = volume(claim);
        long disk = diskLimit(pod);
        if (disk > 0) disks.bound(volume, claimSize(pod.getMetadata().getNamespace(), claim));
        Path tmp = root.resolve("tmp").resolve(pod.getMetadata().getName() + "-" + pod.getMetadata().getUid());
        // the layout init container's work: the claim's two directories, owned by the pod's uid (fsGroup)
        for (Path dir : List.of(root, root.resolve("volumes"), volume, root.resolve("tmp"))) traversable(dir);
        passable(root.toAbsolutePath().getParent());
        for (Path dir : List.of(volume.resolve("workspace"), volume.resolve("outputs"), tmp)) owned(dir, uid);
        List<NetworkPolicy> policies = client.network().v1().networkPolicies().inNamespace(pod.getMetadata().getNamespace()).list().getItems()
                .stream().filter(np -> selectsForEgress(np, pod)).toList();
        boolean fenced = !policies.isEmpty();
        Path podDir = root.resolve("pods").resolve(pod.getMetadata().getName() + "-" + pod.getMetadata().getUid());
        traversable(root.resolve("pods"));
        traversable(podDir);
        Map<String, Path> emptyDirs = new java.util.LinkedHashMap<>();
        for (Volume v : pod.getSpec().getVolumes()) {
            if (v.getEmptyDir() == null || v.getName().equals("tmp")) continue;
            Path d = podDir.resolve("volume-" + v.getName());
            owned(d, uid);
            emptyDirs.put(v.getName(), d);
        }
        Peer p = peer;
        PodNetwork network = fenced && p != null && policies.stream().anyMatch(np -> allowsPeer(np, p))
                ? new PodNetwork(podDir.resolve("net"), p.podPort(), p.hostPort()) : null;
        RunningPod running = new RunningPod(pod.getMetadata().getName(), pod.getMetadata().getUid(), volume, tmp, uid, fenced, network, emptyDirs);
        running.cgroup = new PodCgroup("fake-kubelet-" + pod.getMetadata().getName() + "-" + pod.getMetadata().getUid(), memoryLimit(pod));
        cgroups.add(running.cgroup);
        pods.put(key, running);
        for (Container init : pod.getSpec().getInitContainers()) {
            String failure = running.runInit(init);
            if (failure != null) {
                pod.setStatus(new PodStatusBuilder().withPhase("Failed").withReason("Init:Error").withMessage(failure).build());
                client.pods().inNamespace(pod.getMetadata().getNamespace()).resource(pod).updateStatus();
                return;
            }
        }
        running.env = pod.getSpec().getContainers().getFirst().getEnv();
        running.mounts = pod.getSpec().getContainers().getFirst().getVolumeMounts();
        pod.setStatus(new PodStatusBuilder()
                .withPhase("Running")
                .withPodIP("10.0.0." + addresses.getAndIncrement())
                .withConditions(new PodConditionBuilder().withType("Ready").withStatus("True").build())
                .withContainerStatuses(new ContainerStatusBuilder().withName(SandboxObjects.CONTAINER).withReady(true).withStarted(true)
                        .withNewState().withNewRunning().endRunning().endState().build())
                .build());
        client.pods().inNamespace(pod.getMetadata().getNamespace()).resource(pod).updateStatus();
    }

    private static long memoryLimit(Pod pod) {
        var limits = pod.getSpec().getContainers().getFirst().getResources().getLimits();
        var q = limits == null ? null : limits.get("memory");
        return q == null ? 0 : q.getNumericalAmount().longValueExact();
    }

    /** The sandbox container's ephemeral-storage limit in bytes (what the driver sets for limits.disk), or 0. */
    private static long diskLimit(Pod pod) {
        var limits = pod.getSpec().getContainers().getFirst().getResources().getLimits();
        var q = limits == null ? null : limits.get("ephemeral-storage");
        return q == null ? 0 : q.getNumericalAmount().longValueExact();
    }

    /** The storage a claim requests, as its provisioner would make the volume. */
    private long claimSize(String namespace, String claim) {
        var pvc = client.persistentVolumeClaims().inNamespace(namespace).withName(claim).get();
        if (pvc == null) throw new IllegalStateException("claim " + claim + " does not exist");
        return pvc.getSpec().getResources().getRequests().get("storage").getNumericalAmount().longValueExact();
    }

    /** A policy that selects the pod and lists Egress among its types: from then on only what some such policy allows leaves. */
    private static boolean selectsForEgress(NetworkPolicy np, Pod pod) {
        Map<String, String> selector = np.getSpec().getPodSelector().getMatchLabels();
        boolean selects = selector != null && pod.getMetadata().getLabels().entrySet().containsAll(selector.entrySet());
        return selects && np.getSpec().getPolicyTypes().contains("Egress");
    }

    /** Whether an egress rule opens the peer: TCP on its port, to pods with its labels in its namespace. */
    private static boolean allowsPeer(NetworkPolicy np, Peer p) {
        return np.getSpec().getEgress().stream().anyMatch(rule ->
                rule.getPorts().stream().anyMatch(port -> "TCP".equals(port.getProtocol()) && port.getPort() != null
                        && Integer.valueOf(p.hostPort()).equals(port.getPort().getIntVal()))
                && rule.getTo().stream().anyMatch(to -> to.getNamespaceSelector() != null && to.getPodSelector() != null
                        && Map.of("kubernetes.io/metadata.name", p.namespace()).equals(to.getNamespaceSelector().getMatchLabels())
                        && p.labels().entrySet().containsAll(to.getPodSelector().getMatchLabels().entrySet())));
    }

    private void stop(Pod pod) {
        RunningPod p = pods.remove(pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName());
        if (p == null) return;
        p.kill();
        if (p.network != null) p.network.close();
        if (p.cgroup != null) p.cgroup.remove();
        deleteTree(p.tmp);
    }

    private static List<String> commandOf(String query) {
        List<String> argv = new ArrayList<>();
        for (String pair : query.split("&")) {
            int eq = pair.indexOf('=');
            if (eq > 0 && pair.substring(0, eq).equals("command")) argv.add(URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
        }
        return argv;
    }

    /** The pod's uid passes through (the test's temporary directory is private to root). */
    private static void traversable(Path dir) {
        try {
            Files.createDirectories(dir);
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx--x--x"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Lets other users pass through the directories above the kubelet's root that the test made private (0700). */
    private static void passable(Path dir) {
        for (Path d = dir; d != null && d.getNameCount() > 1; d = d.getParent()) {
            try {
                Set<PosixFilePermission> perms = Files.getPosixFilePermissions(d);
                if (perms.contains(PosixFilePermission.OTHERS_EXECUTE)) return;
                perms.add(PosixFilePermission.OTHERS_EXECUTE);
                Files.setPosixFilePermissions(d, perms);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private static void owned(Path dir, long uid) {
        try {
            Files.createDirectories(dir);
            Files.setAttribute(dir, "unix:uid", (int) uid, LinkOption.NOFOLLOW_LINKS);
            Files.setAttribute(dir, "unix:gid", (int) uid, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void deleteTree(Path dir) {
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) return;
        try (Stream<Path> tree = Files.walk(dir)) {
            tree.sorted((a, b) -> b.getNameCount() - a.getNameCount()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        if (watch != null) watch.close();
        List.copyOf(pods.keySet()).forEach(key -> {
            RunningPod p = pods.remove(key);
            p.kill();
            if (p.network != null) p.network.close();
            if (p.cgroup != null) p.cgroup.remove();
        });
        cgroups.forEach(PodCgroup::remove);
        disks.close();
    }

    /**
     * One pod's real side: where its files are, the processes its execs started, the sandbox container's environment
     * and extra volumes (execs run with them, as in the container), and its network: the host's (no policy selects
     * it), a namespace with nothing in it (a policy denies all egress) or one with a way to the allowed peer only.
     */
    static final class RunningPod {
        final String name;
        /** In the environment of everything the pod's execs start, so deleting the pod finds what they left behind. */
        final String marker;
        final Path volume;
        final Path tmp;
        final long uid;
        final boolean fenced;
        final PodNetwork network;
        final Map<String, Path> emptyDirs;
        volatile List<EnvVar> env = List.of();
        volatile List<VolumeMount> mounts = List.of();
        /** Null only while the pod is being set up. */
        volatile PodCgroup cgroup;
        final List<ProcessHandle> processes = new java.util.concurrent.CopyOnWriteArrayList<>();

        RunningPod(String name, String podUid, Path volume, Path tmp, long uid, boolean fenced, PodNetwork network, Map<String, Path> emptyDirs) {
            this.name = name;
            this.marker = MARKER + "=" + name + "-" + podUid;
            this.volume = volume;
            this.tmp = tmp;
            this.uid = uid;
            this.fenced = fenced;
            this.network = network;
            this.emptyDirs = emptyDirs;
        }

        /** The command line of one exec: bwrap as the pod's uid, with the pod's directories bound in. */
        List<String> bwrap(List<String> argv) {
            List<String> cmd = start();
            cmd.addAll(List.of("--bind", volume.resolve("workspace").toString(), "/workspace",
                    "--bind", volume.resolve("outputs").toString(), "/mnt/session/outputs",
                    "--bind", tmp.toString(), "/tmp"));
            for (VolumeMount m : mounts) {
                Path dir = emptyDirs.get(m.getName());
                if (dir != null) cmd.addAll(List.of(Boolean.TRUE.equals(m.getReadOnly()) ? "--ro-bind" : "--bind", dir.toString(), m.getMountPath()));
            }
            for (EnvVar e : env) if (e.getValue() != null) cmd.addAll(List.of("--setenv", e.getName(), e.getValue()));
            cmd.addAll(List.of("--setenv", MARKER, marker.substring(MARKER.length() + 1)));
            cmd.addAll(List.of("--chdir", "/workspace", "--setenv", "HOME", "/workspace", "--"));
            cmd.addAll(argv);
            return cmd;
        }

        /**
         * Kills every process of the pod, as a real kubelet does with the container's pid namespace: the execs still
         * streaming and whatever they left running in the background (found by the marker in their environment).
         */
        void kill() {
            processes.forEach(proc -> {
                proc.descendants().forEach(ProcessHandle::destroyForcibly);
                proc.destroyForcibly();
            });
            byte[] mark = (marker + "\0").getBytes(StandardCharsets.UTF_8);
            ProcessHandle.allProcesses().filter(h -> environContains(h.pid(), mark)).forEach(ProcessHandle::destroyForcibly);
        }

        private static boolean environContains(long pid, byte[] mark) {
            try {
                byte[] environ = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "environ"));
                outer:
                for (int i = 0; i + mark.length <= environ.length; i++) {
                    if (i > 0 && environ[i - 1] != 0) continue;
                    for (int j = 0; j < mark.length; j++) if (environ[i + j] != mark[j]) continue outer;
                    return true;
                }
                return false;
            } catch (IOException | RuntimeException gone) {
                return false;
            }
        }

        /** Runs an init container's command to its end, as the pod's uid with its mounts and environment; its failure, or null. */
        String runInit(Container init) {
            List<String> cmd = start();
            for (VolumeMount m : init.getVolumeMounts()) {
                Path dir = emptyDirs.containsKey(m.getName()) ? emptyDirs.get(m.getName()) : volume;
                cmd.addAll(List.of("--bind", dir.toString(), m.getMountPath()));
            }
            for (EnvVar e : init.getEnv()) if (e.getValue() != null) cmd.addAll(List.of("--setenv", e.getName(), e.getValue()));
            cmd.add("--");
            cmd.addAll(init.getCommand());
            try {
                Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
                p.getOutputStream().close();
                String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                return p.waitFor() == 0 ? null : "init container " + init.getName() + " failed: " + output;
            } catch (IOException e) {
                return "init container " + init.getName() + " did not start: " + e.getMessage();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return "interrupted";
            }
        }

        private List<String> start() {
            List<String> cmd = new ArrayList<>();
            PodCgroup c = cgroup;
            if (c != null) cmd.addAll(c.enter());
            if (network != null) cmd.addAll(network.enter());
            cmd.addAll(List.of("setpriv", "--reuid", Long.toString(uid), "--regid", Long.toString(uid), "--clear-groups",
                    "bwrap", "--die-with-parent", "--unshare-ipc", "--unshare-uts", "--cap-drop", "ALL"));
            if (fenced && network == null) cmd.add("--unshare-net");
            cmd.addAll(List.of("--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib",
                    "--symlink", "usr/lib64", "/lib64", "--symlink", "usr/sbin", "/sbin", "--ro-bind", "/etc", "/etc", "--dev", "/dev",
                    // execs share the host's pid namespace (one per exec would hide them from each other), so /proc is the host's
                    "--ro-bind", "/proc", "/proc"));
            if (c != null) cmd.addAll(c.binds());
            return cmd;
        }
    }
}
