package dev.paddock.app.cli;

import dev.paddock.core.images.ImageInfo;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

/**
 * Adds the empty directories a sandbox mounts over a read-only image root ({@code /workspace}, {@code /proc},
 * {@code /dev}, {@code /tmp}): debootstrap builds have no {@code /workspace} and OCI images often lack some of
 * them, and bubblewrap cannot create a mount point on a read-only root. Whatever already exists under such a
 * name, a symlink included, is left alone and never followed.
 */
final class ImageMountPoints {
    static final List<String> NAMES = List.of("workspace", "proc", "dev", "tmp");

    private ImageMountPoints() {}

    static ImageInfo ensure(ImageInfo image) {
        for (String name : NAMES) {
            Path p = image.rootfs().resolve(name);
            if (Files.exists(p, LinkOption.NOFOLLOW_LINKS)) continue;
            try {
                Files.createDirectory(p, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
            } catch (FileAlreadyExistsException e) {
                // made meanwhile: fine
            } catch (IOException e) {
                throw new UncheckedIOException("cannot add /" + name + " to image " + image.name() + ": " + e.getMessage(), e);
            }
        }
        return image;
    }
}
