package dev.paddock.agents.skills;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A checked skill upload: every file in one top-level directory, a {@code SKILL.md} at its root whose front matter
 * names and describes the skill, within {@link SkillLimits}. Paths are relative, use {@code /}, and have no empty,
 * {@code .} or {@code ..} component, so nothing can land outside the skill's directory; a multipart part carries
 * bytes only, so there are no links to follow.
 *
 * @param files the files with {@link SkillFile#path()} relative to the top-level directory, sorted by path
 */
public record SkillUpload(String directory, SkillFrontMatter frontMatter, List<SkillFile> files, long bytes) {
    public static final String SKILL_MD = "SKILL.md";
    private static final int MAX_PATH = 1024;
    private static final int MAX_COMPONENT = 255;

    public SkillUpload {
        files = List.copyOf(files);
    }

    public String name() {
        return frontMatter.name();
    }

    public String description() {
        return frontMatter.description();
    }

    /** Checks the files of an upload; the first rule broken is a 400 (or 413) with its own code. */
    public static SkillUpload check(List<SkillFile> uploaded, SkillLimits limits) {
        if (uploaded.isEmpty()) {
            throw new PaddockException(ErrorCode.SKILL_FILES_MISSING, "the upload has no files: send each file as a multipart part named "
                    + "'files' whose filename is its path, such as my-skill/SKILL.md");
        }
        if (uploaded.size() > limits.maxFiles()) {
            throw new PaddockException(ErrorCode.SKILL_TOO_MANY_FILES, "a skill holds at most " + limits.maxFiles() + " files, got " + uploaded.size());
        }
        long bytes = 0;
        for (SkillFile f : uploaded) bytes += Math.max(0, f.size());
        if (bytes > limits.maxTotalBytes()) {
            throw new PaddockException(ErrorCode.SKILL_TOO_LARGE, "a skill's files may take at most " + limits.maxTotalBytes()
                    + " bytes together, got " + bytes);
        }
        String directory = null;
        List<SkillFile> relative = new ArrayList<>();
        Set<String> paths = new HashSet<>();
        for (SkillFile f : uploaded) {
            List<String> parts = components(f.path());
            if (parts.size() < 2) {
                throw pathInvalid(f.path(), "every file must be inside the skill's top-level directory, such as my-skill/" + SKILL_MD);
            }
            if (directory == null) directory = parts.getFirst();
            else if (!directory.equals(parts.getFirst())) {
                throw pathInvalid(f.path(), "all files must be in the same top-level directory ('" + Text.clip(directory, 60) + "/')");
            }
            String rest = String.join("/", parts.subList(1, parts.size()));
            if (!paths.add(rest)) throw pathInvalid(f.path(), "the upload has two files at this path");
            relative.add(new SkillFile(rest, f.size(), f.content()));
        }
        for (String p : paths) {
            for (int slash = p.indexOf('/'); slash > 0; slash = p.indexOf('/', slash + 1)) {
                if (paths.contains(p.substring(0, slash))) {
                    throw pathInvalid(directory + "/" + p.substring(0, slash), "it is both a file and the directory of " + directory + "/" + p);
                }
            }
        }
        SkillFile skillMd = relative.stream().filter(f -> f.path().equals(SKILL_MD)).findFirst().orElseThrow(() ->
                new PaddockException(ErrorCode.SKILL_MD_MISSING, "the upload needs a " + SKILL_MD + " at the root of its top-level directory ("
                        + Text.clip(uploaded.getFirst().path().split("/")[0], 60) + "/" + SKILL_MD + ")"));
        SkillFrontMatter frontMatter = SkillFrontMatter.parse(read(skillMd, limits), directory);
        relative.sort(Comparator.comparing(SkillFile::path));
        return new SkillUpload(directory, frontMatter, relative, bytes);
    }

    /** The path's components, or a 400 {@code skill_path_invalid} that says what is wrong with it. */
    static List<String> components(String path) {
        if (path == null || path.isBlank()) throw pathInvalid("", "every file part needs a filename: the file's path, such as my-skill/" + SKILL_MD);
        if (path.length() > MAX_PATH) throw pathInvalid(path, "a path may be at most " + MAX_PATH + " characters");
        if (path.startsWith("/")) throw pathInvalid(path, "paths are relative to the upload, not absolute");
        if (path.indexOf('\\') >= 0) throw pathInvalid(path, "use '/' to separate directories");
        for (int i = 0; i < path.length(); i++) {
            if (Character.isISOControl(path.charAt(i))) throw pathInvalid(path, "a path may not hold control characters");
        }
        List<String> parts = List.of(path.split("/", -1));
        for (String part : parts) {
            if (part.isEmpty()) throw pathInvalid(path, "a path may not have empty components ('//' or a trailing '/')");
            if (part.equals(".") || part.equals("..")) throw pathInvalid(path, "a path may not have '.' or '..' components");
            if (part.getBytes(StandardCharsets.UTF_8).length > MAX_COMPONENT) throw pathInvalid(path, "a file or directory name may be at most " + MAX_COMPONENT + " bytes");
        }
        return parts;
    }

    private static byte[] read(SkillFile f, SkillLimits limits) {
        try (InputStream in = f.content().open()) {
            byte[] bytes = in.readNBytes((int) Math.min(limits.maxTotalBytes() + 1, Integer.MAX_VALUE - 8));
            if (bytes.length > limits.maxTotalBytes()) {
                throw new PaddockException(ErrorCode.SKILL_TOO_LARGE, SKILL_MD + " is over the limit of " + limits.maxTotalBytes() + " bytes");
            }
            return bytes;
        } catch (IOException e) {
            throw new UncheckedIOException("reading the uploaded " + SKILL_MD + " failed", e);
        }
    }

    private static PaddockException pathInvalid(String path, String why) {
        return new PaddockException(ErrorCode.SKILL_PATH_INVALID, "file '" + Text.clip(path, 120) + "': " + why);
    }
}
