package dev.paddock.egress;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.core.spi.CredentialBinding;
import dev.paddock.core.spi.EgressAttachment;
import dev.paddock.core.spi.EgressPort;
import dev.paddock.core.spi.NetworkPolicy;
import dev.paddock.egress.policy.EgressRules;
import dev.paddock.egress.proxy.EgressProxy;
import dev.paddock.egress.proxy.ProxyListener;
import dev.paddock.egress.proxy.SandboxCredentials;
import dev.paddock.egress.tls.CertificateAuthority;
import dev.paddock.egress.vault.CredentialRule;
import dev.paddock.egress.vault.Vault;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The host's {@link EgressPort} on an {@link EgressProxy}: one unix-socket listener per sandbox at
 * {@code <dataDir>/egress/<sandboxId>/proxy.sock}.
 *
 * <p>The driver binds the <em>directory</em> into the sandbox (a bound socket file would keep pointing at a dead
 * inode once a restarted host re-creates the socket) and hands it to the sandbox's uid with mode 0700. The
 * socket inside takes the directory's owner and mode 0600 each time it is created, so after a restart only that
 * uid can connect again, and nothing else on the host can reach another sandbox's way out.
 *
 * <p>Credential placeholders are derived from the vault key and the sandbox id ({@link SandboxCredentials#bindStable}),
 * so re-opening after a restart gives the sandbox's existing environment the same meaning.
 */
public final class ProxyEgressPort implements EgressPort, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ProxyEgressPort.class);
    public static final String SOCKET_NAME = "proxy.sock";
    public static final String DIR_NAME = "egress";
    private static final Pattern SANDBOX_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_-]{0,63}");
    /** sun_path holds 108 bytes including the terminating NUL. */
    private static final int MAX_SOCKET_PATH = 107;

    private record Open(ProxyListener listener, EgressAttachment attachment) {}

    private final EgressProxy proxy;
    private final Vault vault;
    private final Path root;
    private final Map<String, Open> open = new ConcurrentHashMap<>();

    /**
     * @param proxy   the proxy serving every sandbox (its CA, if any, is what sandboxes are told to trust)
     * @param vault   where credential secrets live; null when this host offers no credentials
     * @param dataDir the data directory; sockets go under {@code <dataDir>/egress}
     */
    public ProxyEgressPort(EgressProxy proxy, Vault vault, Path dataDir) {
        this.proxy = proxy;
        this.vault = vault;
        this.root = dataDir.toAbsolutePath().normalize().resolve(DIR_NAME);
        try {
            Files.createDirectories(root);
            // sandbox uids must be able to walk to their own directory (bwrap opens it as that uid), never list it
            Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwx--x--x"));
        } catch (IOException e) {
            throw PaddockException.internal("cannot create the egress socket directory " + root, e);
        }
    }

    /** The directory of one sandbox's socket (whether or not it is open). */
    public Path socketDir(String sandboxId) {
        return root.resolve(requireId(sandboxId));
    }

    @Override
    public synchronized EgressAttachment open(String tenantId, String sandboxId, NetworkPolicy policy, List<CredentialBinding> credentials) {
        requireId(sandboxId);
        Open existing = open.get(sandboxId);
        if (existing != null) return existing.attachment();
        EgressRules.validate(policy);
        // a bad binding fails here, before any sandbox runs with it
        List<CredentialRule> rules = credentials == null ? List.of() : credentials.stream().map(CredentialRule::of).toList();
        if (!rules.isEmpty() && vault == null) {
            throw new PaddockException(ErrorCode.VAULT_UNAVAILABLE, "this server has no vault, so sandboxes cannot have credentials");
        }
        Path dir = socketDir(sandboxId);
        Path socket = dir.resolve(SOCKET_NAME);
        if (socket.toString().length() > MAX_SOCKET_PATH) {
            throw new PaddockException(ErrorCode.DATA_DIR_TOO_LONG, "the egress socket path " + socket + " is too long for a unix socket; use a shorter data directory");
        }
        boolean firstOpen = !Files.exists(dir, LinkOption.NOFOLLOW_LINKS);
        SandboxCredentials creds = rules.isEmpty() ? SandboxCredentials.NONE
                : SandboxCredentials.bindStable(vault, tenantId, sandboxId, rules, firstOpen);
        prepareDir(dir);
        ProxyListener listener = proxy.listen(sandboxId, socket, policy, creds);
        try {
            takeDirectoryOwner(dir, socket);
        } catch (IOException | RuntimeException e) {
            listener.close();
            throw PaddockException.internal("cannot set the owner of egress socket " + socket, e instanceof IOException io ? io : null);
        }
        CertificateAuthority ca = proxy.certificateAuthority();
        EgressAttachment attachment = new EgressAttachment(dir.toString(), SOCKET_NAME, ca == null ? null : ca.certificatePem(), creds.environment());
        open.put(sandboxId, new Open(listener, attachment));
        return attachment;
    }

    @Override
    public synchronized EgressAttachment reopen(String tenantId, String sandboxId, NetworkPolicy policy) {
        Open o = open.remove(requireId(sandboxId));
        if (o != null) o.listener().close(); // the directory stays: the sandbox has it bound
        return open(tenantId, sandboxId, policy, List.of());
    }

    /** The rules change in place: the socket, its directory and the credential placeholders stay as they are. */
    @Override
    public synchronized void changePolicy(String sandboxId, NetworkPolicy policy) {
        Open o = open.get(requireId(sandboxId));
        if (o == null) {
            throw new PaddockException(ErrorCode.NETWORK_NOT_CHANGEABLE, "sandbox " + sandboxId
                    + " has no egress listener: it was started with network none, so nothing inside it can reach the proxy;"
                    + " create a new sandbox with network limited");
        }
        EgressRules.validate(policy);
        o.listener().replaceRules(policy);
    }

    /** Closes the listener and removes the sandbox's socket directory; its audit records stay. */
    @Override
    public synchronized void close(String sandboxId) {
        if (sandboxId == null || !SANDBOX_ID.matcher(sandboxId).matches()) return;
        Open o = open.remove(sandboxId);
        if (o != null) o.listener().close();
        Path dir = root.resolve(sandboxId);
        try {
            Files.deleteIfExists(dir.resolve(SOCKET_NAME));
            Files.deleteIfExists(dir);
        } catch (IOException e) {
            log.warn("cannot remove egress directory {}: {}", dir, e.toString());
        }
    }

    /** True while a listener is open for the sandbox. */
    @Override
    public boolean isOpen(String sandboxId) {
        return open.containsKey(sandboxId);
    }

    /**
     * Stops every listener but keeps the socket directories: sandboxes outlive the host process, and a restarted
     * host re-creates each socket in the directory the sandbox already has bound.
     */
    @Override
    public synchronized void close() {
        open.values().forEach(o -> o.listener().close());
        open.clear();
    }

    private static void prepareDir(Path dir) {
        try {
            if (Files.isSymbolicLink(dir)) throw PaddockException.internal("egress directory " + dir + " is a symlink; refusing to use it", null);
            if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
                Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            }
        } catch (IOException e) {
            throw PaddockException.internal("cannot create the egress directory " + dir, e);
        }
    }

    /** The directory's owner is the sandbox uid once the driver handed it over; the socket follows it. */
    private static void takeDirectoryOwner(Path dir, Path socket) throws IOException {
        Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-------"));
        Object uid = Files.getAttribute(dir, "unix:uid", LinkOption.NOFOLLOW_LINKS);
        Object gid = Files.getAttribute(dir, "unix:gid", LinkOption.NOFOLLOW_LINKS);
        Files.setAttribute(socket, "unix:uid", uid, LinkOption.NOFOLLOW_LINKS);
        Files.setAttribute(socket, "unix:gid", gid, LinkOption.NOFOLLOW_LINKS);
    }

    private static String requireId(String sandboxId) {
        if (sandboxId == null || !SANDBOX_ID.matcher(sandboxId).matches()) {
            throw new PaddockException(ErrorCode.INVALID_ID, "sandbox id '" + Text.clip(sandboxId, 60) + "' must be 1-64 characters of A-Z a-z 0-9 _ -");
        }
        return sandboxId;
    }

    @Override
    public String toString() { return "ProxyEgressPort[" + root + ", " + open.size() + " open]"; }
}
