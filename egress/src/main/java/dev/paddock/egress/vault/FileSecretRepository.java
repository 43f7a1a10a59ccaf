package dev.paddock.egress.vault;

import dev.paddock.core.PaddockException;

import dev.paddock.core.egress.SecretRepository;
import dev.paddock.core.egress.StoredSecret;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * One file per secret under {@code <root>/<tenant>/<id>.secret}, written atomically (temp file + rename) with
 * mode 0600. Files hold only the nonce and ciphertext, never the value.
 */
public final class FileSecretRepository implements SecretRepository {
    private final Path root;

    public FileSecretRepository(Path root) {
        this.root = root;
        try {
            Files.createDirectories(root, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } catch (IOException e) {
            throw PaddockException.internal("cannot create the vault directory " + root, e);
        }
    }

    @Override
    public synchronized void put(StoredSecret s) {
        Path dir = tenantDir(s.tenantId());
        Properties p = new Properties();
        p.setProperty("id", s.id());
        p.setProperty("tenant_id", s.tenantId());
        p.setProperty("name", s.name());
        p.setProperty("nonce", Base64.getEncoder().encodeToString(s.nonce()));
        p.setProperty("ciphertext", Base64.getEncoder().encodeToString(s.ciphertext()));
        p.setProperty("created_at", s.createdAt().toString());
        p.setProperty("updated_at", s.updatedAt().toString());
        p.setProperty("version", Integer.toString(s.version()));
        try {
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            Path tmp = Files.createTempFile(dir, ".tmp-", ".secret", PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            try {
                try (OutputStream out = Files.newOutputStream(tmp)) {
                    p.store(out, null);
                }
                try {
                    Files.move(tmp, file(s.tenantId(), s.id()), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(tmp, file(s.tenantId(), s.id()), StandardCopyOption.REPLACE_EXISTING);
                }
            } finally {
                Files.deleteIfExists(tmp);
            }
        } catch (IOException e) {
            throw PaddockException.internal("cannot write secret " + s.id(), e);
        }
    }

    @Override
    public Optional<StoredSecret> get(String tenantId, String id) {
        if (!Vault.isSecretId(id)) return Optional.empty();
        return read(file(tenantId, id));
    }

    @Override
    public List<StoredSecret> list(String tenantId) {
        Path dir = tenantDir(tenantId);
        if (!Files.isDirectory(dir)) return List.of();
        List<StoredSecret> out = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                if (f.getFileName().toString().endsWith(".secret") && !f.getFileName().toString().startsWith(".")) read(f).ifPresent(out::add);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        out.sort(Comparator.comparing(StoredSecret::id));
        return out;
    }

    @Override
    public synchronized boolean delete(String tenantId, String id) {
        if (!Vault.isSecretId(id)) return false;
        try {
            return Files.deleteIfExists(file(tenantId, id));
        } catch (IOException e) {
            throw PaddockException.internal("cannot delete secret " + id, e);
        }
    }

    private Path tenantDir(String tenantId) { return root.resolve(Vault.requireTenant(tenantId)); }

    private Path file(String tenantId, String id) { return tenantDir(tenantId).resolve(id + ".secret"); }

    private static Optional<StoredSecret> read(Path f) {
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(f)) {
            p.load(in);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw PaddockException.internal("cannot read secret file " + f.getFileName(), e);
        }
        try {
            return Optional.of(new StoredSecret(p.getProperty("id"), p.getProperty("tenant_id"), p.getProperty("name"),
                    Base64.getDecoder().decode(p.getProperty("nonce")), Base64.getDecoder().decode(p.getProperty("ciphertext")),
                    Instant.parse(p.getProperty("created_at")), Instant.parse(p.getProperty("updated_at")),
                    Integer.parseInt(p.getProperty("version"))));
        } catch (RuntimeException e) {
            throw PaddockException.internal("secret file " + f.getFileName() + " is damaged", e);
        }
    }
}
