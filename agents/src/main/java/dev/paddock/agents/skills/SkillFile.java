package dev.paddock.agents.skills;

import java.io.IOException;
import java.io.InputStream;

/**
 * One file of a skill upload: its path as the client sent it (the multipart part's filename, such as
 * {@code pdf-forms/SKILL.md}), its size in bytes and its content, opened once.
 */
public record SkillFile(String path, long size, Content content) {
    /** Opens the file's bytes; the caller closes the stream. */
    @FunctionalInterface
    public interface Content {
        InputStream open() throws IOException;
    }
}
