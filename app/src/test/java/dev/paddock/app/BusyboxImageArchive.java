package dev.paddock.app;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;

/**
 * Writes a tiny {@code docker save} archive whose one layer is a root filesystem made of Debian's static busybox
 * ({@code busybox-static}: /bin/busybox) with the usual applet links, an /etc/os-release that names it, and the
 * directories a read-only root needs as mount points.
 */
final class BusyboxImageArchive {
    static final Path BUSYBOX = Path.of("/bin/busybox");
    static final String OS_ID = "paddock-busybox-test";
    static final List<String> APPLETS = List.of("sh", "cat", "echo", "ls", "touch", "mkdir", "rm", "id", "sleep", "test", "grep");

    private BusyboxImageArchive() {}

    static Path write(Path file) throws IOException {
        return write(file, true);
    }

    /** Without {@code mountPoints} the rootfs lacks /workspace, /proc, /dev and /tmp, as many real images do. */
    static Path write(Path file, boolean mountPoints) throws IOException {
        byte[] layer = layer(mountPoints);
        String diffId = sha256(layer);
        byte[] config = ("{\"architecture\":\"amd64\",\"os\":\"linux\",\"config\":{\"Env\":[\"PATH=/bin\"]},"
                + "\"rootfs\":{\"type\":\"layers\",\"diff_ids\":[\"" + diffId + "\"]}}").getBytes(StandardCharsets.UTF_8);
        String configName = sha256(config).substring("sha256:".length()) + ".json";
        byte[] manifest = ("[{\"Config\":\"" + configName + "\",\"RepoTags\":[\"busybox:paddock-test\"],"
                + "\"Layers\":[\"layer0/layer.tar\"]}]").getBytes(StandardCharsets.UTF_8);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (TarArchiveOutputStream tar = new TarArchiveOutputStream(out)) {
            file(tar, configName, config, 0644);
            dir(tar, "layer0/");
            file(tar, "layer0/layer.tar", layer, 0644);
            file(tar, "manifest.json", manifest, 0644);
        }
        Files.write(file, out.toByteArray());
        return file;
    }

    private static byte[] layer(boolean mountPoints) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (TarArchiveOutputStream tar = new TarArchiveOutputStream(out)) {
            tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
            for (String d : mountPoints ? List.of("bin/", "etc/", "proc/", "dev/", "tmp/", "workspace/") : List.of("bin/", "etc/")) dir(tar, d);
            file(tar, "bin/busybox", Files.readAllBytes(BUSYBOX), 0755);
            for (String applet : APPLETS) link(tar, "bin/" + applet, "busybox");
            file(tar, "etc/os-release", ("ID=" + OS_ID + "\nPRETTY_NAME=\"Paddock busybox test image\"\n").getBytes(StandardCharsets.UTF_8), 0644);
        }
        return out.toByteArray();
    }

    private static void dir(TarArchiveOutputStream tar, String name) throws IOException {
        TarArchiveEntry e = new TarArchiveEntry(name);
        e.setMode(040755);
        tar.putArchiveEntry(e);
        tar.closeArchiveEntry();
    }

    private static void file(TarArchiveOutputStream tar, String name, byte[] data, int mode) throws IOException {
        TarArchiveEntry e = new TarArchiveEntry(name);
        e.setMode(0100000 | mode);
        e.setSize(data.length);
        tar.putArchiveEntry(e);
        tar.write(data);
        tar.closeArchiveEntry();
    }

    private static void link(TarArchiveOutputStream tar, String name, String target) throws IOException {
        TarArchiveEntry e = new TarArchiveEntry(name, TarConstants.LF_SYMLINK);
        e.setLinkName(target);
        e.setMode(0120777);
        tar.putArchiveEntry(e);
        tar.closeArchiveEntry();
    }

    private static String sha256(byte[] data) {
        try {
            return "sha256:" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
