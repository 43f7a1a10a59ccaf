package dev.paddock.app.serve;

import dev.paddock.agents.ClusterMembership;
import dev.paddock.agents.ManagedAgents;
import dev.paddock.core.spi.SandboxDriver;
import dev.paddock.host.HostConfig;
import dev.paddock.host.RuntimeHost;
import dev.paddock.host.nodes.NodeMembership;
import dev.paddock.host.nodes.NodeSettings;
import dev.paddock.server.cluster.ClusterLink;
import dev.paddock.store.JdbcStore;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.Base64;
import java.util.List;

/**
 * A server on a PostgreSQL store is a node of the cluster of all servers on that store: it joins as the next epoch
 * of its data directory's node, looks after only its node's sandboxes, renews its lease, forwards requests for other
 * nodes' sandboxes and, once it finds its lease lost, pauses writes until it has rejoined as a new epoch.
 */
final class ClusterWiring {
    private ClusterWiring() {}

    /** Joins; the URL is the configured one, or the listen address once the port is known ({@link #listening}). */
    static NodeMembership join(ServeSettings s, DataDir dir, JdbcStore store, List<SandboxDriver> drivers, List<AutoCloseable> started) {
        String url = s.nodeUrl() != null ? s.nodeUrl() : s.port() != 0 ? listenUrl(s, s.port()) : "";
        List<String> runnable = drivers.stream().filter(d -> d.unavailableReason().isEmpty()).map(SandboxDriver::id).distinct().toList();
        Path checkpoints = s.checkpointDir() != null ? s.checkpointDir() : HostConfig.defaults(dir.root()).checkpointsDir();
        NodeMembership membership = NodeMembership.join(store.nodes(),
                new NodeSettings(dir.nodeId(), url, s.nodeLabels(), s.nodeLease(), checkpoints), runnable, Clock.systemUTC());
        started.add(membership);
        return membership;
    }

    /** Starts the heartbeat once the host has taken its node's sandboxes back. */
    static void start(NodeMembership membership, RuntimeHost host, JdbcStore store) {
        membership.start(host, store, new NodeMembership.Writes() {
            @Override public void pause(String why) { store.pauseWrites(why); }
            @Override public void resume() { store.resumeWrites(); }
        });
    }

    /** A sandbox is held here while this node's lease holds and its host has it attached; otherwise the store says where. */
    static ClusterLink link(ServeSettings s, NodeMembership membership, JdbcStore store, ManagedAgents agents, RuntimeHost host) {
        String secret = s.clusterSecret() != null ? s.clusterSecret() : store.nodes().clusterSecret(newSecret());
        return new ClusterLink(membership.nodeId(), store.nodes(), store, secret, agents::sessionSandbox,
                id -> membership.holdsLease() && host.attached(id), agents::sessionNode);
    }

    /** Each session's loop runs on one node at a time; a lost node's sessions go on on a live one. */
    static void sessions(NodeMembership membership, ManagedAgents agents) {
        agents.joinCluster(new ClusterMembership() {
            @Override public String selfOwner() { return membership.owner().ownerId(); }
            @Override public boolean live(String ownerId) { return membership.live(ownerId); }
        });
        membership.onNodeLost(agents::nodeLost);
    }

    /** Records the address the other nodes reach this one at, when no node_url was set and the port was chosen at start. */
    static void listening(ServeSettings s, NodeMembership membership, JdbcStore store, int port) {
        if (s.nodeUrl() == null && s.port() == 0) store.nodes().setUrl(membership.nodeId(), membership.joined().epoch(), listenUrl(s, port));
    }

    private static String listenUrl(ServeSettings s, int port) {
        return "http://" + PaddockApp.hostForUrl(s.bind()) + ":" + port;
    }

    private static String newSecret() {
        byte[] b = new byte[32];
        new SecureRandom().nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }
}
