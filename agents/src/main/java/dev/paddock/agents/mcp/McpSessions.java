package dev.paddock.agents.mcp;

import dev.paddock.core.egress.SecretValue;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The MCP connections of every session this server runs, one {@link SessionMcp} per session, closed when the
 * session's loop state is forgotten (the session ended or was deleted) and at shutdown.
 */
public final class McpSessions implements AutoCloseable {
    private final McpConnector connector;
    private final McpCredentialSource credentials;
    private final Clock clock;
    private final Map<String, SessionMcp> sessions = new ConcurrentHashMap<>();

    public McpSessions(McpSettings settings, McpCredentialSource credentials, Clock clock) {
        this(settings, credentials, clock, McpAddressPolicy.Resolver.SYSTEM);
    }

    McpSessions(McpSettings settings, McpCredentialSource credentials, Clock clock, McpAddressPolicy.Resolver resolver) {
        this.connector = new McpConnector(settings.allowPrivateHosts(), resolver);
        this.credentials = credentials;
        this.clock = clock;
    }

    public SessionMcp of(String tenantId, String sessionId) {
        return sessions.computeIfAbsent(sessionId, id -> new SessionMcp(tenantId, connector, credentials, clock));
    }

    /** Closes the session's connections (a no-op when it has none). */
    public void close(String sessionId) {
        SessionMcp s = sessions.remove(sessionId);
        if (s != null) s.close();
    }

    /**
     * Connects to {@code url} with {@code token} (null: none), initializes and lists tools, and closes again: whether
     * the server takes the credential. Its address is checked like a session's.
     */
    public McpProbe probe(String url, SecretValue token) {
        try (McpServerConnection ignored = connector.connect("probe", url, token)) {
            return new McpProbe(McpProbe.VALID, null);
        } catch (McpFailure f) {
            return new McpProbe(f.kind() == McpFailure.Kind.AUTHENTICATION ? McpProbe.INVALID : McpProbe.UNKNOWN, f.method());
        }
    }

    /** How many sessions hold MCP state (for tests: it must not outlive them). */
    public int open() {
        return sessions.size();
    }

    @Override
    public void close() {
        sessions.values().forEach(SessionMcp::close);
        sessions.clear();
    }
}
