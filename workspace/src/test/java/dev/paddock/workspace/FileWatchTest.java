package dev.paddock.workspace;

import static dev.paddock.workspace.WorkspaceFixture.assertRefused;
import static dev.paddock.workspace.WorkspaceFixture.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.FileChange;
import dev.paddock.core.spi.FileChange.Kind;
import dev.paddock.core.spi.FileWatch;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Watching a host-directory workspace with inotify, as a hostile sandbox would try to abuse it. */
class FileWatchTest {
    @TempDir Path base;
    WorkspaceFixture fx;

    @BeforeEach
    void setUp() throws IOException {
        fx = new WorkspaceFixture(base);
        fx.workspace.mkdir("dir");
    }

    @Test
    void createdModifiedAndDeletedPathsAreReportedAsSandboxPathsAlsoInNewSubdirectories() throws IOException {
        try (FileWatch watch = fx.workspace.watch("/workspace/dir", true)) {
            Files.writeString(fx.root.resolve("dir/a.txt"), "one");
            List<FileChange> first = until(watch, c -> c.contains(new FileChange(Kind.CREATED, "/workspace/dir/a.txt")));
            assertThat(first).noneMatch(c -> c.path().startsWith(fx.root.toString()));

            Files.writeString(fx.root.resolve("dir/a.txt"), "two");
            until(watch, c -> c.contains(new FileChange(Kind.MODIFIED, "/workspace/dir/a.txt")));

            Files.createDirectories(fx.root.resolve("dir/sub"));
            until(watch, c -> c.contains(new FileChange(Kind.CREATED, "/workspace/dir/sub")));
            Files.writeString(fx.root.resolve("dir/sub/b.txt"), "deep");
            until(watch, c -> c.stream().anyMatch(x -> x.path().equals("/workspace/dir/sub/b.txt")));

            Files.delete(fx.root.resolve("dir/a.txt"));
            until(watch, c -> c.contains(new FileChange(Kind.DELETED, "/workspace/dir/a.txt")));
        }
    }

    @Test
    void aFileCreatedAndWrittenBeforeTheNextReadIsOneCreatedEntry() throws IOException {
        try (FileWatch watch = fx.workspace.watch("dir", false)) {
            Files.writeString(fx.root.resolve("dir/c.txt"), "x");
            Files.writeString(fx.root.resolve("dir/c.txt"), "y");
            List<FileChange> changes = until(watch, c -> !c.isEmpty());
            assertThat(changes).containsExactly(new FileChange(Kind.CREATED, "/workspace/dir/c.txt"));
        }
    }

    @Test
    void aSymlinkOutOfTheWorkspaceIsNeverFollowedNorWatched() throws IOException {
        Files.createSymbolicLink(fx.root.resolve("dir/out"), fx.outside);
        Files.createSymbolicLink(fx.root.resolve("escape"), fx.outside);
        assertRefused(() -> fx.workspace.watch("/workspace/escape", true), "path_outside_workspace");
        try (FileWatch watch = fx.workspace.watch("/workspace/dir", true)) {
            Files.writeString(fx.outside.resolve("outside-change.txt"), "host file");
            Files.writeString(fx.root.resolve("dir/marker"), "inside");
            List<FileChange> seen = until(watch, c -> c.stream().anyMatch(x -> x.path().endsWith("/marker")));
            assertThat(seen).noneMatch(c -> c.path().contains("outside-change"));
        }
    }

    @Test
    void aBurstPastTheBatchCapEndsInOneOverflow() throws IOException {
        try (FileWatch watch = new InotifyWatch(Fd.openHostDirectory(fx.root.resolve("dir").toString()), "/workspace/dir", false, 8, 5)) {
            for (int i = 0; i < 20; i++) Files.writeString(fx.root.resolve("dir/f" + i), "x");
            List<FileChange> batch = until(watch, c -> !c.isEmpty());
            assertThat(batch).hasSize(6);
            assertThat(batch.getLast()).isEqualTo(new FileChange(Kind.OVERFLOW, "/workspace/dir"));
            assertThat(batch.subList(0, 5)).allMatch(c -> c.kind() == Kind.CREATED);
        }
    }

    @Test
    void directoriesPastTheCapAreNotWatchedAndSaySo() throws IOException {
        for (int i = 0; i < 4; i++) Files.createDirectories(fx.root.resolve("dir/d" + i));
        try (FileWatch watch = new InotifyWatch(Fd.openHostDirectory(fx.root.resolve("dir").toString()), "/workspace/dir", true, 3, 100)) {
            List<FileChange> first = watch.next(Duration.ZERO);
            assertThat(first).containsExactly(new FileChange(Kind.OVERFLOW, "/workspace/dir"));
        }
    }

    @Test
    void theWatchEndsWhenItsDirectoryIsDeleted() throws IOException {
        fx.workspace.write("dir/x", bytes("x"));
        try (FileWatch watch = fx.workspace.watch("dir", true)) {
            fx.workspace.delete("dir", true);
            until(watch, c -> c.contains(new FileChange(Kind.DELETED, "/workspace/dir")));
            assertThat(watch.ended()).isTrue();
        }
    }

    @Test
    void onlyDirectoriesAreWatched() {
        fx.workspace.write("file.txt", bytes("x"));
        assertRefused(() -> fx.workspace.watch("file.txt", false), "not_a_directory");
        assertRefused(() -> fx.workspace.watch("missing", false), "file_not_found");
    }

    @Test
    void aTreeFarWiderThanTheCapNeverHoldsMoreDescriptorsThanTheCap() throws Exception {
        // a sandbox can make tens of thousands of directories; the server's descriptors (20,000 here) are shared by all
        for (int i = 0; i < 3000; i++) Files.createDirectory(fx.root.resolve("dir/d" + i));
        long before = openDescriptors();
        AtomicLong most = new AtomicLong(before);
        AtomicBoolean watching = new AtomicBoolean(true);
        Thread sampler = Thread.ofPlatform().start(() -> {
            while (watching.get()) most.accumulateAndGet(openDescriptors(), Math::max);
        });
        try (FileWatch watch = new InotifyWatch(Fd.openHostDirectory(fx.root.resolve("dir").toString()), "/workspace/dir", true, 8, 100)) {
            watching.set(false);
            sampler.join();
            assertThat(watch.next(Duration.ZERO)).containsExactly(new FileChange(Kind.OVERFLOW, "/workspace/dir"));
        }
        // the cap's directories, the inotify descriptor, one being opened, one listing and the sampler's own listing
        assertThat(most.get() - before).as("descriptors held at most while the watch was made").isLessThanOrEqualTo(8 + 4);
    }

    @Test
    void pathsThatLeaveTheWorkspaceAreRefusedBeforeAnythingIsWatched() throws IOException {
        Files.createDirectories(fx.root.resolve("dir/inner"));
        Files.createSymbolicLink(fx.root.resolve("dir/inner/up"), Path.of("../../.."));
        for (String path : List.of("/workspace/../etc", "/workspace/dir/../../", "../", "/etc", "/workspace/dir/inner/up", "/workspace/dir/inner/up/x")) {
            assertThatThrownBy(() -> fx.workspace.watch(path, true).close()).as(path).isInstanceOf(PaddockException.class)
                    .satisfies(e -> assertThat(((PaddockException) e).code()).isIn("path_outside_workspace", "invalid_path", "file_not_found"));
        }
    }

    @Test
    void aWatchTheKernelHasNoRoomForIsATypedRetryableRefusal() {
        for (Errno exhausted : List.of(new Errno("inotify_init1", Errno.EMFILE), new Errno("inotify_add_watch", Errno.ENOSPC),
                new Errno("openat", Errno.ENFILE), new Errno("inotify_init1", Errno.ENOMEM))) {
            PaddockException e = WorkspaceErrors.ofWatch(exhausted, "/workspace");
            assertThat(e.code()).as(exhausted.getMessage()).isEqualTo("too_many_watches");
            assertThat(e.errorCode().httpStatus()).isEqualTo(429);
        }
        assertThat(WorkspaceErrors.ofWatch(new Errno("openat", Errno.ENOSPC), "/workspace").code()).as("a full disk is not a watch limit")
                .isEqualTo("workspace_full");
        assertThat(WorkspaceErrors.of(new Errno("openat", Errno.EMFILE), "/workspace/f").errorCode().httpStatus())
                .as("a host out of descriptors is for the client to retry, not a server fault").isEqualTo(503);
    }

    private static long openDescriptors() {
        try (var fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Collects batches until what arrived so far matches; a watch that never delivers fails after a generous wait. */
    private static List<FileChange> until(FileWatch watch, Predicate<List<FileChange>> done) {
        List<FileChange> seen = new ArrayList<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!done.test(seen)) {
            assertThat(System.nanoTime()).as("changes so far: %s", seen).isLessThan(deadline);
            seen.addAll(watch.next(Duration.ofMillis(200)));
        }
        return seen;
    }
}
