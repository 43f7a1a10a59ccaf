package dev.paddock.server.cluster;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.nodes.NodeRecord;
import dev.paddock.core.nodes.NodeState;
import dev.paddock.core.nodes.Placement;
import dev.paddock.core.store.SandboxRecord;
import dev.paddock.server.http.ApiErrors;
import dev.paddock.server.http.ApiJson;
import dev.paddock.server.http.Auth;
import dev.paddock.server.http.Bodies;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;

/**
 * Any node answers any request: a request for a sandbox another node holds is forwarded to that node, so is a write
 * to a session whose live sandbox another node holds (its turns run their tools there), and a create is placed
 * ({@link Placement}) and forwarded to the chosen node. Runs after authentication, so only a known caller
 * causes traffic between nodes; a request another node forwarded is always answered here. A sandbox whose node was
 * lost is answered here too: its record says it failed and why. {@code GET /v1/sandboxes/{id}} of a holder that does
 * not answer shows the shared record without its live status. Paths that carry their own credential (a terminal's
 * attach token, a port's token URL) are forwarded without a caller, and their WebSockets are relayed
 * ({@link #beforeUpgrade}): the tokens stay in the memory of the node that holds the sandbox, and the path names
 * the sandbox, whose record names that node. A sandbox attached here while this node's lease holds is answered here
 * without asking the store.
 */
public final class SandboxForwarding implements AutoCloseable {
    private static final Pattern SESSION_PATH = Pattern.compile("^/v1/sessions/(sesn_[A-Za-z0-9_-]{1,60})(/.*)?$");
    private static final Pattern SANDBOX_PATH = Pattern.compile("^/v1/sandboxes/(sbx_[A-Za-z0-9_-]{1,60})(/.*)?$");
    /** How long the holder may take to show a sandbox's record before the shared record is shown instead. */
    private static final Duration RECORD_WAIT = Duration.ofSeconds(10);
    private final ClusterLink link;
    private final ApiJson json;
    private final Bodies bodies;
    private final NodeAuth auth;
    private final Forwarder forwarder;
    private final WebSocketForwarder webSockets;
    private final Clock clock;

    public SandboxForwarding(ClusterLink link, NodeAuth auth, ApiJson json, Bodies bodies, Clock clock) {
        this.link = link;
        this.json = json;
        this.bodies = bodies;
        this.auth = auth;
        this.forwarder = new Forwarder(auth, this::holdsLease);
        this.webSockets = new WebSocketForwarder(auth, this::holdsLease);
        this.clock = clock;
    }

    /** A Javalin before-matched handler. */
    public void handle(Context ctx) {
        if (NodeAuth.forwarded(ctx)) return;
        if (ctx.path().equals("/v1/sandboxes") && ctx.method() == HandlerType.POST) {
            place(ctx);
            return;
        }
        Matcher m = SANDBOX_PATH.matcher(ctx.path());
        if (m.matches()) {
            forwardToHolder(ctx, m.group(1), m.group(2) == null && ctx.method() == HandlerType.GET);
            return;
        }
        // one node runs a session's loop (its owner), and its turns run their tools where its sandbox is: its writes go there
        Matcher s = SESSION_PATH.matcher(ctx.path());
        if (s.matches() && ctx.method() != HandlerType.GET) {
            String tenant = Auth.principal(ctx).tenantId();
            Optional<NodeRecord> owner = link.sessionNode().apply(tenant, s.group(1)).flatMap(this::liveElsewhere);
            if (owner.isPresent()) {
                forwarder.forward(ctx, Auth.caller(ctx).orElse(null), owner.get().id(), owner.get().url(), null, null);
                ctx.skipRemainingHandlers();
                return;
            }
            link.sessionSandbox().apply(tenant, s.group(1)).ifPresent(id -> forwardToHolder(ctx, id, false));
        }
    }

    /**
     * Whether a node a request or WebSocket was handed to still holds its lease; true when that cannot be known (the
     * store does not answer): the node may well be serving, and cutting it off then would end healthy streams.
     */
    private boolean holdsLease(String nodeId) {
        try {
            return liveElsewhere(nodeId).isPresent();
        } catch (RuntimeException unknown) {
            return true;
        }
    }

    /** The node when it is another one with a live lease and an address; empty otherwise (the request is answered here). */
    private Optional<NodeRecord> liveElsewhere(String nodeId) {
        if (nodeId.equals(link.selfId())) return Optional.empty();
        return link.nodes().find(nodeId).filter(n -> n.state() != NodeState.LOST && !n.url().isBlank() && !n.leaseExpired(clock.instant()));
    }

    /**
     * A Javalin WebSocket before-upgrade handler (registered before the routes' own): a WebSocket under
     * {@code /v1/sandboxes/{id}/…} for a sandbox another live node holds is relayed there; otherwise the route's own
     * handlers accept it here.
     */
    public void beforeUpgrade(Context ctx) throws IOException {
        try {
            auth.authenticateTokenPath(ctx);
            if (NodeAuth.forwarded(ctx)) return;
            Matcher m = SANDBOX_PATH.matcher(ctx.path());
            if (!m.matches()) return;
            Optional<NodeRecord> node = holderElsewhere(m.group(1), null);
            if (node.isEmpty()) return;
            webSockets.forward(ctx, node.get().id(), node.get().url());
        } catch (PaddockException e) {
            ApiErrors.refuseUpgrade(ctx, json, e); // an upgrade's error is written here: nothing after this handler writes it
        }
    }

    private void forwardToHolder(Context ctx, String sandboxId, boolean recordOnly) {
        Optional<NodeRecord> node;
        try {
            node = holderElsewhere(sandboxId, Auth.caller(ctx).map(p -> p.tenantId()).orElse(null));
            if (node.isEmpty()) return;
            forwarder.forward(ctx, Auth.caller(ctx).orElse(null), node.get().id(), node.get().url(), null, recordOnly ? RECORD_WAIT : null);
        } catch (PaddockException e) {
            // the record itself is in the shared store: shown here (without the live status) while its holder does not answer
            if (recordOnly && e.errorCode() == ErrorCode.NODE_UNREACHABLE) return;
            throw e;
        }
        ctx.skipRemainingHandlers();
    }

    /**
     * The live node that holds the sandbox when that is another one; empty when the request is answered here (held
     * here, unknown, another tenant's, ended, or its node lost). A holder that stopped renewing its lease is refused as
     * unreachable. {@code tenant} is the caller's (null on a path that carries its own credential): another tenant's
     * sandbox is answered here as not found, so neither its node's state nor its existence shows.
     */
    private Optional<NodeRecord> holderElsewhere(String sandboxId, String tenant) {
        if (link.heldHere().test(sandboxId)) return Optional.empty();
        Optional<SandboxRecord> record = link.store().sandboxes().find(sandboxId);
        if (record.isEmpty() || record.get().state().isTerminal()) return Optional.empty();
        if (tenant != null && !tenant.equals(record.get().tenantId())) return Optional.empty();
        String nodeId = record.get().fence().nodeId();
        if (nodeId.equals(link.selfId())) return Optional.empty();
        Optional<NodeRecord> node = link.nodes().find(nodeId);
        if (node.isEmpty() || node.get().state() == NodeState.LOST || node.get().url().isBlank()) return Optional.empty();
        if (node.get().leaseExpired(clock.instant())) {
            throw new PaddockException(ErrorCode.NODE_UNREACHABLE, "node " + nodeId + " (which holds this sandbox) stopped renewing "
                    + "its lease; retry, or wait until it is marked lost and its sandboxes failed");
        }
        return node;
    }

    private void place(Context ctx) {
        byte[] body = bodies.rawJson(ctx);
        JsonNode request = body.length == 0 ? null : readQuietly(body);
        String driver = request == null ? null : textOrNull(request.path("driver"));
        Map<String, String> labels = new LinkedHashMap<>();
        if (request != null) {
            JsonNode wanted = request.path("placement").path("node_labels");
            if (wanted.isObject()) {
                for (var e : wanted.properties()) {
                    // a label that is no string is left to the create route, which answers it with a precise error
                    if (!e.getValue().isString()) return;
                    labels.put(e.getKey(), e.getValue().asString());
                }
            }
        }
        String checkpoint = request == null ? null : textOrNull(request.path("from_checkpoint"));
        if (checkpoint != null) {
            fromCheckpoint(ctx, checkpoint, body);
            return;
        }
        NodeRecord chosen = Placement.choose(link.nodes().list(), driver, labels, clock.instant());
        if (chosen.id().equals(link.selfId())) return;
        forwarder.forward(ctx, Auth.principal(ctx), chosen.id(), chosen.url(), body, null);
        ctx.skipRemainingHandlers();
    }

    /**
     * A restore runs where its archive is: on the node that holds (or last held) the checkpoint's sandbox. When that
     * node is this one, lost or unknown, the create is answered here (and says what is missing).
     */
    private void fromCheckpoint(Context ctx, String checkpointId, byte[] body) {
        String tenant = Auth.principal(ctx).tenantId();
        Optional<String> nodeId = link.store().checkpoints().find(checkpointId).filter(c -> tenant.equals(c.tenantId())) // another tenant's: not found here
                .flatMap(c -> link.store().sandboxes().find(c.sandboxId())).map(r -> r.fence().nodeId());
        if (nodeId.isEmpty() || nodeId.get().equals(link.selfId())) return;
        Optional<NodeRecord> node = link.nodes().find(nodeId.get());
        if (node.isEmpty() || node.get().state() == NodeState.LOST || node.get().url().isBlank()) return;
        forwarder.forward(ctx, Auth.principal(ctx), node.get().id(), node.get().url(), body, null);
        ctx.skipRemainingHandlers();
    }

    /** An unreadable body is left to the create route, which answers it with a precise error. */
    private JsonNode readQuietly(byte[] body) {
        try {
            return json.mapper().readTree(body);
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static String textOrNull(JsonNode n) {
        return n.isString() ? n.asString() : null;
    }

    @Override
    public void close() {
        forwarder.close();
        webSockets.close();
    }
}
