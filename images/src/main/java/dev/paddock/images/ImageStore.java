package dev.paddock.images;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.core.images.ImageInfo;
import dev.paddock.core.images.ImageLayout;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The named root filesystems sandboxes can run on: {@code <imagesDir>/<name>/rootfs} plus {@code image.json}
 * (the {@link ImageLayout} that drivers read).
 *
 * <p>Images are built or imported into a hidden temporary directory next to their final place and renamed into
 * place only when complete, so a crash or a refused archive never leaves a half-made image under a real name.
 * Directories are kept world-traversable (0755) because the sandbox's unprivileged user must reach the rootfs to
 * bind it. Whether an image is still in use is {@link ImageCatalog}'s business: {@link #delete} just deletes.
 */
public final class ImageStore {
    private static final Logger log = LoggerFactory.getLogger(ImageStore.class);
    private static final String TEMP_PREFIX = ".tmp-";
    private static final String DELETING_PREFIX = ".del-";
    private static final Set<PosixFilePermission> DIR_MODE = RootfsTrees.permissions(0755);

    private final ImageLayout layout;
    private final Path imagesDir;
    private final ImageLimits limits;
    private final Path etcApt;
    private final String defaultMirror;
    private final Clock clock;
    private final Set<String> inProgress = ConcurrentHashMap.newKeySet();

    /** The images of a data directory, where drivers look for them ({@link ImageLayout#inDataDir}). */
    public static ImageStore inDataDir(Path dataDir) {
        return new ImageStore(ImageLayout.inDataDir(dataDir).imagesDir());
    }

    public ImageStore(Path imagesDir) {
        this(imagesDir, ImageLimits.DEFAULT);
    }

    public ImageStore(Path imagesDir, ImageLimits limits) {
        this(imagesDir, limits, null);
    }

    /**
     * @param defaultMirror Debian mirror for builds whose {@link BuildSpec} names none; null means the mirror the
     *                      host's apt uses (from /etc/apt/sources.list*), else http://deb.debian.org/debian
     */
    public ImageStore(Path imagesDir, ImageLimits limits, String defaultMirror) {
        this(imagesDir, limits, defaultMirror, Path.of("/etc/apt"), Clock.systemUTC());
    }

    ImageStore(Path imagesDir, ImageLimits limits, String defaultMirror, Path etcApt, Clock clock) {
        this.layout = new ImageLayout(imagesDir);
        this.imagesDir = layout.imagesDir();
        this.limits = Objects.requireNonNull(limits, "limits");
        if (defaultMirror != null) BuildSpec.validateMirror(defaultMirror);
        this.defaultMirror = defaultMirror;
        this.etcApt = etcApt;
        this.clock = clock;
    }

    public Path imagesDir() {
        return imagesDir;
    }

    /** All complete images, sorted by name. */
    public List<ImageInfo> list() {
        if (!Files.isDirectory(imagesDir)) return List.of();
        List<ImageInfo> images = new ArrayList<>();
        try (var dirs = Files.list(imagesDir)) {
            for (Path dir : dirs.sorted().toList()) {
                String name = dir.getFileName().toString();
                if (ImageLayout.isValidName(name)) load(name).ifPresent(images::add);
            }
        } catch (IOException e) {
            throw PaddockException.internal("cannot list images in " + imagesDir, e);
        }
        images.sort(Comparator.comparing(ImageInfo::name));
        return images;
    }

    public Optional<ImageInfo> find(String name) {
        return load(ImageLayout.validateName(name));
    }

    /** Like {@link #find} but throws {@code image_not_found}. */
    public ImageInfo get(String name) {
        return find(name).orElseThrow(() -> ImageErrors.notFound(name));
    }

    /** The rootfs directory of an existing image (what the bwrap driver binds read-only at /). */
    public Path rootfs(String name) {
        return get(name).rootfs();
    }

    /** Deletes an image. The caller must have checked that no sandbox uses it. */
    public void delete(String name) {
        Path dir = layout.dir(name);
        if (!inProgress.add(name)) throw ImageErrors.busy(name);
        try {
            if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) throw ImageErrors.notFound(name);
            // Rename first so the name disappears at once and a failed delete leaves no half-image behind it.
            Path doomed = imagesDir.resolve(DELETING_PREFIX + name + "-" + System.nanoTime());
            Files.move(dir, doomed, StandardCopyOption.ATOMIC_MOVE);
            RootfsTrees.deleteRecursively(doomed);
        } catch (IOException e) {
            throw PaddockException.internal("could not delete image '" + name + "': " + e.getMessage(), e);
        } finally {
            inProgress.remove(name);
        }
    }

    /**
     * Builds a minimal Debian image with debootstrap. Blocks until done (minutes); {@code progress} receives
     * debootstrap's output line by line. Needs root and the {@code debootstrap} package.
     */
    public ImageInfo buildDebian(String name, BuildSpec spec, Consumer<String> progress) {
        ImageLayout.validateName(name);
        BuildSpec buildSpec = spec == null ? BuildSpec.defaults() : spec;
        Consumer<String> sink = progress == null ? line -> { } : progress;
        Debootstrap debootstrap = Debootstrap.locate();
        String mirror = mirrorFor(buildSpec);
        return create(name, staging -> {
            Path rootfs = staging.resolve(ImageLayout.ROOTFS);
            sink.accept("building Debian " + buildSpec.suite() + " (minbase) from " + mirror);
            try {
                debootstrap.run(buildSpec, mirror, rootfs, sink);
            } finally {
                Mounts.unmountUnder(staging);
            }
            makeShareable(rootfs);
            return new ImageInfo(name, ImageInfo.SOURCE_DEBOOTSTRAP, clock.instant(), RootfsTrees.sizeOf(rootfs),
                    finalRootfs(name), "debian:" + buildSpec.suite(), buildSpec.packages(), List.of());
        });
    }

    /**
     * Imports a {@code docker save} archive or an OCI image layout tar (optionally gzipped) after verifying every
     * layer's digest. Hostile entries (escapes, writes through links, links out of the image) fail the import.
     */
    public ImageInfo importOci(String name, Path ociTar) {
        ImageLayout.validateName(name);
        if (ociTar == null || !Files.isRegularFile(ociTar)) {
            throw ImageErrors.invalidArchive("image archive '" + Text.clip(String.valueOf(ociTar), 200)
                    + "' is not a readable file");
        }
        return create(name, staging -> {
            Path archiveDir = Files.createDirectory(staging.resolve("archive"));
            Path rootfs = Files.createDirectory(staging.resolve(ImageLayout.ROOTFS));
            Files.setPosixFilePermissions(rootfs, DIR_MODE);
            ArchiveContents contents = ArchiveContents.unpack(ociTar, archiveDir, limits);
            OciImage image = OciArchiveReader.read(contents, limits);
            for (OciLayer layer : image.layers()) layer.verify(limits);
            UnpackBudget budget = new UnpackBudget(limits);
            LayerApplier applier = new LayerApplier(rootfs, budget);
            for (OciLayer layer : image.layers()) {
                try (InputStream tar = layer.openTar(limits)) {
                    applier.apply(tar);
                }
            }
            applier.finish();
            RootfsTrees.deleteRecursively(archiveDir);
            makeShareable(rootfs);
            return new ImageInfo(name, ImageInfo.SOURCE_OCI, clock.instant(), RootfsTrees.sizeOf(rootfs),
                    finalRootfs(name), image.ref(), List.of(), image.env());
        });
    }

    /** The mirror a build with this spec would use (the spec's, else the store default, else the host's apt). */
    public String mirrorFor(BuildSpec spec) {
        if (spec.mirror() != null) return spec.mirror();
        if (defaultMirror != null) return defaultMirror;
        String detected = HostAptMirror.detect(etcApt, spec.suite());
        try {
            BuildSpec.validateMirror(detected);
            return detected;
        } catch (PaddockException e) {
            return HostAptMirror.DEFAULT_MIRROR; // an odd host entry must not break builds
        }
    }

    /** Removes temporary and half-deleted directories left by a crash. Call at startup, before any build. */
    public void removeLeftovers() {
        if (!Files.isDirectory(imagesDir)) return;
        try (var dirs = Files.list(imagesDir)) {
            for (Path dir : dirs.toList()) {
                String n = dir.getFileName().toString();
                if (n.startsWith(TEMP_PREFIX) || n.startsWith(DELETING_PREFIX)) {
                    Mounts.unmountUnder(dir);
                    RootfsTrees.deleteRecursively(dir);
                }
            }
        } catch (IOException e) {
            log.warn("could not remove leftover image directories in {}: {}", imagesDir, e.getMessage());
        }
    }

    // ---- internals ----

    private interface Producer {
        ImageInfo produce(Path staging) throws IOException;
    }

    /** Reserves the name, runs {@code producer} in a private staging dir and renames the result into place. */
    private ImageInfo create(String name, Producer producer) {
        Path target = layout.dir(name);
        if (Files.exists(target, LinkOption.NOFOLLOW_LINKS)) throw ImageErrors.exists(name);
        if (!inProgress.add(name)) throw ImageErrors.busy(name);
        Path staging = null;
        try {
            Files.createDirectories(imagesDir);
            staging = Files.createTempDirectory(imagesDir, TEMP_PREFIX + name + "-");
            Files.setPosixFilePermissions(staging, DIR_MODE);
            ImageInfo info = producer.produce(staging);
            ImageMetadata.write(staging, info);
            if (Files.exists(target, LinkOption.NOFOLLOW_LINKS)) throw ImageErrors.exists(name);
            Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
            staging = null;
            log.info("image {} ready ({}, {} bytes)", name, info.source(), info.sizeBytes());
            return info;
        } catch (FileAlreadyExistsException e) {
            throw ImageErrors.exists(name);
        } catch (PaddockException e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            throw new PaddockException(ErrorCode.IMAGE_BUILD_FAILED,
                    "creating image '" + name + "' failed: " + Text.clip(String.valueOf(e.getMessage()), 300), e);
        } finally {
            if (staging != null) discard(staging);
            inProgress.remove(name);
        }
    }

    private static void discard(Path staging) {
        try {
            Mounts.unmountUnder(staging);
            RootfsTrees.deleteRecursively(staging);
        } catch (IOException e) {
            log.warn("could not remove temporary image directory {}: {}", staging, e.getMessage());
        }
    }

    /** Device nodes are dropped (bwrap provides /dev) and setuid/setgid bits cleared: the rootfs is shared. */
    private static void makeShareable(Path rootfs) throws IOException {
        Path dev = rootfs.resolve("dev");
        if (Files.isDirectory(dev, LinkOption.NOFOLLOW_LINKS)) RootfsTrees.deleteChildren(dev);
        int stripped = RootfsTrees.stripSetuidSetgid(rootfs);
        if (stripped > 0) log.debug("cleared setuid/setgid on {} files in {}", stripped, rootfs);
        Files.setPosixFilePermissions(rootfs, DIR_MODE);
    }

    private Path finalRootfs(String name) {
        return layout.rootfs(name);
    }

    private Optional<ImageInfo> load(String name) {
        Path dir = layout.dir(name);
        Path rootfs = layout.rootfs(name);
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS) || !Files.isDirectory(rootfs, LinkOption.NOFOLLOW_LINKS)) {
            return Optional.empty();
        }
        ImageInfo recorded = ImageMetadata.read(dir, rootfs);
        if (recorded != null) {
            return Optional.of(new ImageInfo(name, recorded.source(), recorded.createdAt(), recorded.sizeBytes(),
                    rootfs, recorded.ref(), recorded.packages(), recorded.env()));
        }
        // A rootfs placed by hand, without image.json: usable, but its size is not known without a walk.
        Instant created;
        try {
            FileTime time = Files.getLastModifiedTime(rootfs, LinkOption.NOFOLLOW_LINKS);
            created = time.toInstant();
        } catch (IOException e) {
            created = Instant.EPOCH;
        }
        return Optional.of(new ImageInfo(name, "local", created, -1, rootfs, null, List.of(), List.of()));
    }
}
