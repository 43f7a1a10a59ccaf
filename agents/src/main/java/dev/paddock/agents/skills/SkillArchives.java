package dev.paddock.agents.skills;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.FileTrees;
import dev.paddock.core.PaddockException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;

/**
 * The files of skill versions on the server's disk: one tar archive per version at
 * {@code <data-dir>/skills/<skill_id>/<version>.tar} (the directory 0700, archives 0600), whose entries sit under the
 * skill's name ({@code pdf-forms/SKILL.md}), the directory a sandbox gets. Written as {@code .tar.partial} and
 * renamed when complete; holds only directories and regular files.
 */
public final class SkillArchives {
    private static final Pattern SKILL_ID = Pattern.compile("skill_[0-9A-Za-z]{1,64}");
    private static final Pattern VERSION = Pattern.compile("[0-9]{1,20}");
    private final Path root;

    public SkillArchives(Path dataDir) {
        this.root = dataDir.resolve("skills");
    }

    /** Writes a version's archive and returns its size in bytes; a file that grows past its declared size is refused. */
    public long write(String skillId, String version, SkillUpload upload) {
        Path target = archive(skillId, version);
        Path partial = target.resolveSibling(version + ".tar.partial");
        try {
            Files.createDirectories(root);
            Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwx------"));
            Files.createDirectories(target.getParent());
            Files.deleteIfExists(partial);
            try (OutputStream file = Files.newOutputStream(Files.createFile(partial, PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString("rw-------"))));
                 TarArchiveOutputStream tar = new TarArchiveOutputStream(file, "UTF-8")) {
                tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
                for (String dir : directories(upload)) {
                    TarArchiveEntry e = new TarArchiveEntry(upload.name() + "/" + dir + (dir.isEmpty() ? "" : "/"));
                    e.setMode(040755);
                    tar.putArchiveEntry(e);
                    tar.closeArchiveEntry();
                }
                for (SkillFile f : upload.files()) {
                    TarArchiveEntry e = new TarArchiveEntry(upload.name() + "/" + f.path());
                    e.setSize(f.size());
                    e.setMode(0100644);
                    tar.putArchiveEntry(e);
                    try (InputStream in = f.content().open()) {
                        long copied = in.transferTo(tar);
                        if (copied != f.size()) throw new IOException(f.path() + " held " + copied + " bytes, not the " + f.size() + " declared");
                    }
                    tar.closeArchiveEntry();
                }
                tar.finish();
            }
            Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE);
            return Files.size(target);
        } catch (IOException | RuntimeException e) {
            try {
                Files.deleteIfExists(partial);
            } catch (IOException ignored) {
                // best effort; a leftover partial is never read
            }
            if (e instanceof RuntimeException r) throw r;
            throw new UncheckedIOException("storing the skill's files failed", (IOException) e);
        }
    }

    /** A private directory (0700) for the parts of an upload being read; its files live as long as their request. */
    public Path uploadStaging() {
        Path dir = root.resolve(".uploads");
        try {
            Files.createDirectories(dir);
            Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwx------"));
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + dir, e);
        }
    }

    /** The version's archive as stored (entries under the skill's name); the caller closes it. */
    public InputStream open(String skillId, String version) {
        try {
            return Files.newInputStream(archive(skillId, version));
        } catch (IOException e) {
            throw new PaddockException(ErrorCode.SKILL_VERSION_NOT_FOUND, "the files of version " + version + " of skill " + skillId + " are missing on this server");
        }
    }

    /** Writes the version's files as a zip archive (entries under the skill's name), as the Skills API downloads them. */
    public void writeZip(String skillId, String version, OutputStream out) {
        try (InputStream in = open(skillId, version); TarArchiveInputStream tar = new TarArchiveInputStream(in, "UTF-8")) {
            ZipOutputStream zip = new ZipOutputStream(out);
            for (TarArchiveEntry e; (e = tar.getNextEntry()) != null; ) {
                if (!e.isDirectory() && !e.isFile()) continue; // written by this class: never anything else
                zip.putNextEntry(new ZipEntry(e.getName()));
                if (e.isFile()) tar.transferTo(zip);
                zip.closeEntry();
            }
            zip.finish();
            zip.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("reading the skill's files failed", e);
        }
    }

    public void delete(String skillId, String version) {
        try {
            Files.deleteIfExists(archive(skillId, version));
        } catch (IOException e) {
            throw new UncheckedIOException("deleting the skill's files failed", e);
        }
    }

    /** Removes every version's archive of the skill and its directory. */
    public void deleteAll(String skillId) {
        Path dir = root.resolve(checkedId(skillId));
        if (!Files.exists(dir)) return;
        try {
            FileTrees.delete(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("deleting the skill's files failed", e);
        }
    }

    private Path archive(String skillId, String version) {
        if (!VERSION.matcher(version).matches()) throw new IllegalArgumentException("not a skill version: " + version);
        return root.resolve(checkedId(skillId)).resolve(version + ".tar");
    }

    private static String checkedId(String skillId) {
        // ids reach the disk only in this shape, so a path built from one stays under the skills directory
        if (!SKILL_ID.matcher(skillId).matches()) throw new IllegalArgumentException("not a skill id: " + skillId);
        return skillId;
    }

    /** Every directory the files need, parents first; "" is the skill's own directory. */
    private static Set<String> directories(SkillUpload upload) {
        Set<String> dirs = new LinkedHashSet<>();
        dirs.add("");
        for (SkillFile f : upload.files()) {
            String p = f.path();
            for (int slash = p.indexOf('/'); slash > 0; slash = p.indexOf('/', slash + 1)) dirs.add(p.substring(0, slash));
        }
        return dirs;
    }
}
