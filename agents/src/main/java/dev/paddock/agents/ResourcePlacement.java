package dev.paddock.agents;

import dev.paddock.access.Principal;
import dev.paddock.core.BoundedBuffer;
import dev.paddock.core.FileTrees;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.core.egress.SecretValue;
import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.spi.ExecResult;
import dev.paddock.core.spi.Workspace;
import dev.paddock.host.RuntimeHost;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Lays a session's resources into its sandbox before the first tool call, with the SPI's workspace calls only, so any
 * driver with a workspace takes them: a file is written at its place in {@code /workspace}; a repository is cloned on
 * the host ({@link GitClone}, into a private directory under {@code <data-dir>/clones}) and imported as a tar stream
 * (the system {@code tar}). Resources under {@code /mnt/session/uploads} are kept in the workspace (see
 * {@link MountPaths}) and reached through a symlink that an exec in the sandbox makes; on a driver whose commands run
 * on the host (sandbox-free) no such link is made, and those paths are refused when the session is created.
 */
final class ResourcePlacement {
    private static final Duration LINK_TIMEOUT = Duration.ofSeconds(30);

    /** Laying a resource failed; {@code errorType} is the SDK's {@code session.error} type. */
    static final class Failure extends RuntimeException {
        private final String errorType;
        private final String repositoryUrl;

        Failure(String errorType, String message, String repositoryUrl) {
            super(message);
            this.errorType = errorType;
            this.repositoryUrl = repositoryUrl;
        }

        String errorType() { return errorType; }

        String repositoryUrl() { return repositoryUrl; }
    }

    private final RuntimeHost host;
    private final FileService files;
    private final GitClone git;
    private final ResourceSecrets secrets;
    private final Path clones;

    ResourcePlacement(RuntimeHost host, FileService files, ResourceSettings settings) {
        this.host = host;
        this.files = files;
        this.git = new GitClone(settings.githubBaseUrl(), settings.blockedAddress());
        this.secrets = settings.secrets();
        this.clones = host.config().dataDir().resolve("clones");
        // one server per data directory: what is here was left by one that died mid-clone
        if (Files.isDirectory(clones)) deleteTree(clones);
    }

    /** Lays every resource into the sandbox; {@code onHost}: its commands run on the host, so no link is made outside it. */
    void place(Principal owner, String sandboxId, List<SessionMount> mounts, boolean onHost) {
        Workspace workspace = host.workspace(owner, sandboxId);
        boolean uploadsLink = false;
        for (SessionMount m : mounts) {
            String target = MountPaths.inWorkspace(m.mountPath());
            mkdirs(workspace, parent(target));
            if (m.isRepository()) placeRepository(owner, workspace, m, target);
            else placeFile(owner, workspace, m, target);
            uploadsLink |= MountPaths.needsUploadsLink(m.mountPath());
        }
        if (uploadsLink && !onHost) linkUploads(owner, sandboxId);
    }

    private void placeFile(Principal owner, Workspace workspace, SessionMount m, String target) {
        InputStream in;
        try {
            in = files.content(owner, m.fileId());
        } catch (PaddockException e) {
            throw new Failure("unknown_error", "file " + m.fileId() + " of resource " + m.id() + " is gone (deleted?); remove the resource", null);
        }
        try (in) {
            workspace.write(target, in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void placeRepository(Principal owner, Workspace workspace, SessionMount m, String target) {
        Path dir;
        try {
            Files.createDirectories(clones, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            dir = Files.createTempDirectory(clones, "clone-", PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try {
            SecretValue token = m.tokenSecretId() == null ? null : secrets.reveal(owner.tenantId(), m.tokenSecretId());
            try {
                git.cloneInto(m.url(), m.checkout(), token, dir.resolve("repo"));
            } catch (GitClone.Failure f) {
                throw new Failure(f.errorType(), f.getMessage(), m.url());
            }
            workspace.mkdir(target);
            importTree(workspace, dir.resolve("repo"), target);
        } finally {
            deleteTree(dir);
        }
    }

    /** Streams the host tree as a tar (the system tar) into the workspace at {@code target}. */
    private static void importTree(Workspace workspace, Path tree, String target) {
        Process tar;
        try {
            tar = new ProcessBuilder("tar", "--numeric-owner", "-C", tree.toString(), "-cf", "-", ".")
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        } catch (IOException e) {
            throw new UncheckedIOException("tar cannot be started on the Paddock host", e);
        }
        try (InputStream in = tar.getInputStream()) {
            workspace.importTar(target, in);
            if (tar.waitFor() != 0) throw new IllegalStateException("tar of the cloned repository failed");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while laying the repository", e);
        } finally {
            tar.destroyForcibly();
        }
    }

    private void linkUploads(Principal owner, String sandboxId) {
        String script = "mkdir -p /mnt/session && { [ -L " + MountPaths.UPLOADS + " ] || ln -s " + MountPaths.UPLOADS_IN_WORKSPACE + " "
                + MountPaths.UPLOADS + "; }";
        BoundedBuffer stderr = new BoundedBuffer(2048, true);
        ExecResult r = host.run(owner, sandboxId, new ExecRequest(List.of("/bin/sh", "-c", script), Map.of(), Workspace.ROOT, LINK_TIMEOUT, null),
                ExecOutput.into(new BoundedBuffer(0), stderr));
        if (r.exitCode() != 0 || r.timedOut()) {
            throw new Failure("unknown_error", "this sandbox cannot have " + MountPaths.UPLOADS + " (is its root filesystem read-only?): "
                    + Text.clip(stderr.text().strip(), 200) + "; give the resources a mount_path under /workspace", null);
        }
    }

    private static void mkdirs(Workspace workspace, String dir) {
        StringBuilder path = new StringBuilder();
        for (String part : dir.substring(1).split("/")) {
            path.append('/').append(part);
            if (path.length() > Workspace.ROOT.length()) workspace.mkdir(path.toString());
        }
    }

    private static String parent(String path) {
        return path.substring(0, path.lastIndexOf('/'));
    }

    private static void deleteTree(Path root) {
        try {
            FileTrees.delete(root);
        } catch (IOException ignored) {
            // a leftover clone is private to the server; the next start's data directory keeps it until removed
        }
    }
}
