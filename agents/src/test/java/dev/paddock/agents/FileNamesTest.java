package dev.paddock.agents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.core.PaddockException;
import org.junit.jupiter.api.Test;

/** Uploaded files' names and types as the Files API keeps them, and where resources land in the workspace. */
class FileNamesTest {
    @Test
    void onlyTheFinalPathComponentOfANameIsKeptAndAnEmptyOneIsUnnamed() {
        assertThat(FileNames.filename("../../etc/passwd")).isEqualTo("passwd");
        assertThat(FileNames.filename("C:\\Users\\me\\notes.txt")).isEqualTo("notes.txt");
        assertThat(FileNames.filename("dir/")).isEqualTo("unnamed");
        assertThat(FileNames.filename(null)).isEqualTo("unnamed");
        assertThat(FileNames.filename("résumé.pdf")).isEqualTo("résumé.pdf");
    }

    @Test
    void namesWithControlCharactersDotsOrTooManyBytesAreRefused() {
        for (String bad : new String[] {"a\u0000b", "line\nbreak", "..", "é".repeat(128)}) {
            assertThatThrownBy(() -> FileNames.filename(bad)).isInstanceOf(PaddockException.class)
                    .satisfies(e -> assertThat(((PaddockException) e).code()).isEqualTo("file_name_invalid"));
        }
    }

    @Test
    void mimeTypesThatAreNotTypeSlashSubtypeBecomeOctetStream() {
        assertThat(FileNames.mimeType("text/plain; charset=utf-8")).isEqualTo("text/plain");
        assertThat(FileNames.mimeType("Image/PNG")).isEqualTo("image/png");
        assertThat(FileNames.mimeType("text/plain\r\nX-Evil: 1")).isEqualTo("application/octet-stream");
        assertThat(FileNames.mimeType(null)).isEqualTo("application/octet-stream");
    }

    @Test
    void uploadsAreKeptInTheWorkspaceAndOtherMountPathsAreUsedAsTheyAre() {
        assertThat(MountPaths.inWorkspace("/mnt/session/uploads/file_1")).isEqualTo("/workspace/.paddock/uploads/file_1");
        assertThat(MountPaths.inWorkspace("/workspace/repo")).isEqualTo("/workspace/repo");
        assertThat(MountPaths.overlap("/workspace/a", "/workspace/ab")).isFalse();
        assertThat(MountPaths.overlap("/workspace/a", "/workspace/a/b")).isTrue();
        assertThat(RepositoryUrls.repoName("https://github.com/acme/demo.git")).isEqualTo("demo");
    }
}
