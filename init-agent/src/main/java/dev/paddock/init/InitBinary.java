package dev.paddock.init;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The init agent (init-agent/src/main/c/paddock-init.c) ships inside this jar; a driver installs it under
 * {@code <dataDir>/bin} with its content hash in the name, so a new version never overwrites the binary live
 * sandboxes still run.
 */
public final class InitBinary {
    public static final String RESOURCE = "/native/paddock-init";

    private InitBinary() {}

    public static byte[] bundled() {
        try (InputStream in = InitBinary.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new PaddockException(ErrorCode.INIT_BINARY_MISSING,
                        "this build has no " + RESOURCE + "; build it on Linux with gcc and static glibc (Debian: gcc, libc6-dev)");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw PaddockException.internal("cannot read the bundled init binary: " + e.getMessage(), e);
        }
    }

    public static Path install(Path binDir) {
        byte[] bytes = bundled();
        Path target = binDir.resolve("paddock-init-" + sha256(bytes).substring(0, 16));
        try {
            if (Files.isRegularFile(target) && sha256(Files.readAllBytes(target)).equals(sha256(bytes))) return target;
            Files.createDirectories(binDir);
            Path tmp = Files.createTempFile(binDir, "paddock-init", ".tmp");
            Files.write(tmp, bytes);
            Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            return target;
        } catch (IOException e) {
            throw PaddockException.internal("cannot install the init binary into " + binDir + ": " + e.getMessage(), e);
        }
    }

    private static String sha256(byte[] b) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
