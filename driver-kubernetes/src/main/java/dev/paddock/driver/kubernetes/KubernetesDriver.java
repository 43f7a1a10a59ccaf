package dev.paddock.driver.kubernetes;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.conformance.Conformance;
import dev.paddock.core.spi.Fence;
import dev.paddock.core.spi.Limits;
import dev.paddock.core.spi.NetworkPolicy;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxDriver;
import dev.paddock.core.spi.SandboxRef;
import dev.paddock.core.spi.SandboxSpec;
import dev.paddock.core.spi.Workspace;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs each sandbox as a Pod in one namespace through the Kubernetes API (see {@link SandboxPods}): limits become
 * the container's resources, {@code /workspace} and the outputs live on a PersistentVolumeClaim that outlives the
 * pod, a NetworkPolicy denies the pod every connection, and labels (installation, sandbox, fence generation) let a
 * restarted server list, re-attach and reap its sandboxes. Where the cluster serves kubernetes-sigs/agent-sandbox and
 * {@code kubernetes_agent_sandbox} asks for it, each sandbox is a {@code Sandbox} object instead, whose controller makes
 * and owns the pod and claim ({@link AgentSandboxes}); everything else is the same.
 *
 * <p>Commands and files go through the exec API rather than a channel to an agent in the pod: it is authenticated
 * and authorised by the API server (RBAC {@code pods/exec}), needs no network path from the server to the pod (the
 * pod takes no connections at all) and no image change; paddock-init serves only a unix socket for peers outside
 * the sandbox, which a pod on another node cannot offer. The price is a round trip through the API server and the
 * kubelet per command. A sandbox with a network reaches only Paddock's egress proxy, through the {@link EgressGateway}
 * with its own proxy credential; its NetworkPolicy lets it reach nothing else.
 */
public final class KubernetesDriver implements SandboxDriver {
    public static final String ID = "kubernetes";
    private static final Logger LOG = LoggerFactory.getLogger(KubernetesDriver.class);

    private final KubernetesClient client;
    private final KubernetesConfig config;
    private final ClusterSandboxes pods;
    private final EgressGateway gateway;
    private final boolean agentSandboxServed;
    private final boolean warmPoolServed;

    /** Takes over the client (closed with the driver); checks that the API server answers. Sandboxes are plain Pods. */
    public KubernetesDriver(KubernetesClient client, KubernetesConfig config) {
        this(client, config, AgentSandboxMode.OFF);
    }

    /**
     * As above, with sandboxes as agent-sandbox {@code Sandbox} objects where {@code agentSandbox} asks for them:
     * {@code ON} where the cluster does not serve them is {@code driver_unavailable}, {@code AUTO} falls back to Pods.
     */
    public KubernetesDriver(KubernetesClient client, KubernetesConfig config, AgentSandboxMode agentSandbox) {
        this.client = client;
        this.config = config;
        try {
            client.getKubernetesVersion();
        } catch (KubernetesClientException e) {
            client.close();
            throw new PaddockException(ErrorCode.DRIVER_UNAVAILABLE, "the kubernetes driver cannot reach the API server at "
                    + client.getMasterUrl() + ": " + e.getMessage(), e);
        }
        PodEgress egress = config.egress();
        try {
            this.gateway = egress == null ? null : new EgressGateway(egress.listenHost(), egress.listenPort());
        } catch (RuntimeException e) {
            client.close();
            throw e;
        }
        this.agentSandboxServed = agentSandbox != AgentSandboxMode.OFF && AgentSandboxApi.served(client);
        if (agentSandbox == AgentSandboxMode.ON && !agentSandboxServed) {
            if (gateway != null) gateway.close();
            client.close();
            throw new PaddockException(ErrorCode.DRIVER_UNAVAILABLE, "kubernetes_agent_sandbox=true, but the cluster does not serve "
                    + AgentSandboxApi.GROUP + "/" + AgentSandboxApi.VERSION + " " + AgentSandboxApi.RESOURCE
                    + ": install agent-sandbox (see docs/kubernetes.md), or set kubernetes_agent_sandbox to auto or false");
        }
        if (agentSandbox == AgentSandboxMode.AUTO && !agentSandboxServed) {
            LOG.info("the cluster does not serve agent-sandbox ({}/{}); sandboxes are plain Pods", AgentSandboxApi.GROUP, AgentSandboxApi.VERSION);
        }
        ClusterPods clusterPods = new ClusterPods(client, config, gateway);
        PoolClaims pool;
        try {
            pool = warmPool(clusterPods, agentSandbox);
        } catch (RuntimeException e) {
            if (gateway != null) gateway.close();
            client.close();
            throw e;
        }
        this.warmPoolServed = pool != null;
        this.pods = agentSandboxServed ? new AgentSandboxes(clusterPods, pool) : new SandboxPods(clusterPods);
    }

    /**
     * The warm pool of {@code kubernetes_warm_pool_size}, its objects made, or null without one. It needs agent-sandbox's
     * extensions: where they are not served, {@code kubernetes_agent_sandbox=true} does not start (as without
     * agent-sandbox itself) and {@code auto} goes on without a pool.
     */
    private PoolClaims warmPool(ClusterPods clusterPods, AgentSandboxMode agentSandbox) {
        WarmPoolShape shape = config.warmPool();
        if (shape == null) return null;
        if (agentSandbox == AgentSandboxMode.OFF) {
            throw new PaddockException(ErrorCode.DRIVER_UNAVAILABLE, "kubernetes_warm_pool_size needs agent-sandbox: set kubernetes_agent_sandbox to "
                    + "true or auto, or kubernetes_warm_pool_size to 0");
        }
        if (!agentSandboxServed) return null;
        if (!WarmPoolApi.served(client)) {
            if (agentSandbox == AgentSandboxMode.ON) {
                throw new PaddockException(ErrorCode.DRIVER_UNAVAILABLE, "kubernetes_warm_pool_size is set, but the cluster does not serve "
                        + WarmPoolApi.GROUP + "/" + WarmPoolApi.VERSION + " " + String.join(", ", WarmPoolApi.RESOURCES)
                        + ": install agent-sandbox's extensions (see docs/kubernetes.md), or set kubernetes_warm_pool_size to 0");
            }
            LOG.info("the cluster does not serve agent-sandbox's extensions ({}/{}); no warm pool", WarmPoolApi.GROUP, WarmPoolApi.VERSION);
            return null;
        }
        PoolClaims pool = new PoolClaims(clusterPods, shape);
        pool.ensure();
        return pool;
    }

    /** The claims of the driver, readable without a cluster (to list it where it cannot run). */
    public static Conformance conformanceRecord() {
        return KubernetesConformance.RECORD;
    }

    public KubernetesConfig config() {
        return config;
    }

    /** The port sandbox pods' egress is accepted on, or -1 without egress. */
    public int egressPort() {
        return gateway == null ? -1 : gateway.port();
    }

    /** Whether creates of the warm pool's shape are claimed from it (configured, and the cluster serves the extensions). */
    public boolean warmPoolServed() {
        return warmPoolServed;
    }

    /** Whether sandboxes are agent-sandbox {@code Sandbox} objects (asked for, and served by the cluster at start). */
    public boolean agentSandboxServed() {
        return agentSandboxServed;
    }

    @Override
    public String id() {
        return ID;
    }

    @Override
    public Conformance conformance() {
        return KubernetesConformance.RECORD;
    }

    /**
     * {@code limits.disk} is the workspace claim's size (enforced by the storage class's provisioner) and the
     * container's {@code ephemeral-storage} limit (enforced by the kubelet's eviction); without it the claim is
     * {@code kubernetes_workspace_size}. The host bounds it by its maximum; {@link Limits} by its minimum.
     */
    @Override
    public Limits limits(Limits requested) {
        return requested == null ? Limits.DEFAULT : requested;
    }

    @Override
    public Sandbox create(SandboxSpec spec, Fence fence) {
        if (fence == null) throw new PaddockException(ErrorCode.FENCE_REQUIRED, "creating a sandbox needs the fence of its owner");
        if (!ObjectNames.isSandboxId(spec.sandboxId())) {
            throw new PaddockException(ErrorCode.INVALID_SANDBOX_ID, "the kubernetes driver needs sandbox ids of 1-63 letters, digits, '-', '_' or '.'");
        }
        if (spec.network().mode() != NetworkPolicy.Mode.NONE) {
            if (gateway == null) {
                throw new PaddockException(ErrorCode.UNSUPPORTED_NETWORK_POLICY, "this server gives kubernetes sandboxes no way to the egress proxy "
                        + "(kubernetes_egress_listen and kubernetes_egress_proxy are not set), so they run with no network at all; use network mode none");
            }
            if (spec.egress() == null) {
                // fail closed: without the proxy's listener there is no enforced way out
                throw new PaddockException(ErrorCode.EGRESS_UNAVAILABLE, "network mode '" + spec.network().mode().name().toLowerCase(Locale.ROOT)
                        + "' needs the egress proxy, which this server does not run; use network mode none");
            }
        }
        Limits limits = limits(spec.limits());
        pods.create(spec, fence, limits);
        return new KubernetesSandbox(pods, spec.sandboxId(), false);
    }

    @Override
    public Optional<Sandbox> attach(SandboxRef ref) {
        if (ref == null || !ObjectNames.isSandboxId(ref.sandboxId())) return Optional.empty();
        if (pods.ownPodRunning(ref.sandboxId())) return Optional.of(new KubernetesSandbox(pods, ref.sandboxId(), false));
        if (!pods.pods().exists(ref.sandboxId()) && pods.suspended(ref.sandboxId())) return Optional.of(new KubernetesSandbox(pods, ref.sandboxId(), true));
        return Optional.empty();
    }

    @Override
    public List<SandboxRef> list() {
        return pods.live().stream().map(id -> new SandboxRef(id, ID, ObjectNames.pod(id))).toList();
    }

    @Override
    public void destroy(SandboxRef ref) {
        if (ref == null || !ObjectNames.isSandboxId(ref.sandboxId())) return;
        pods.release(ref.sandboxId());
    }

    /** An ended sandbox's claim has no pod to read it through. */
    @Override
    public Optional<Workspace> workspace(SandboxRef ref) {
        return Optional.empty();
    }

    /** Deletes the workspace claim (and with it the volume, by the storage class's reclaim policy). */
    @Override
    public void purge(SandboxRef ref) {
        if (ref == null || !ObjectNames.isSandboxId(ref.sandboxId())) return;
        if (pods.pods().exists(ref.sandboxId())) {
            throw new PaddockException(ErrorCode.SANDBOX_RUNNING, "sandbox " + ref.sandboxId() + " still has a pod; delete it before purging its files");
        }
        pods.deleteClaim(ref.sandboxId());
    }

    @Override
    public void close() {
        if (gateway != null) gateway.close();
        client.close();
    }
}
