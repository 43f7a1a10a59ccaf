package dev.paddock.driver.docker;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

/** A tiny root filesystem around the host's static busybox, as the images module would leave one. */
final class BusyboxRootfs {
    private BusyboxRootfs() {}

    static void write(Path rootfs) throws IOException {
        for (String d : List.of("bin", "etc", "usr/bin", "workspace", "tmp", "proc", "dev", "mnt")) Files.createDirectories(rootfs.resolve(d));
        Files.copy(Path.of("/bin/busybox"), rootfs.resolve("bin/busybox"), StandardCopyOption.COPY_ATTRIBUTES);
        for (String tool : List.of("sh", "cat", "echo", "ls", "wc", "id", "touch")) Files.createSymbolicLink(rootfs.resolve("bin").resolve(tool), Path.of("busybox"));
        Files.writeString(rootfs.resolve("etc/image-name"), "busybox-test\n");
        // open to every uid: only a writable root lets the sandbox write here
        Files.createDirectories(rootfs.resolve("scratch"));
        Files.setPosixFilePermissions(rootfs.resolve("scratch"), PosixFilePermissions.fromString("rwxrwxrwx"));
    }
}
