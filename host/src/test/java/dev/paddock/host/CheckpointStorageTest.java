package dev.paddock.host;

import static dev.paddock.host.HostFixture.ALICE;
import static dev.paddock.host.HostFixture.BOB;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.Limits;
import dev.paddock.core.spi.Workspace;
import dev.paddock.core.store.CheckpointRecord;
import dev.paddock.core.store.PageRequest;
import dev.paddock.core.store.SandboxRecord;
import dev.paddock.core.store.Store;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Checkpoints are private files, capped in size and per tenant, deletable, and gone with a purge. */
class CheckpointStorageTest {
    @TempDir Path dataDir;
    Store store;
    RuntimeHost host;

    private RuntimeHost host(long maxCheckpoint, long perTenant) {
        store = HostFixture.store(dataDir);
        host = new RuntimeHost(HostFixture.config(dataDir, "subprocess").withCheckpointStorage(maxCheckpoint, perTenant), store,
                List.of(HostFixture.subprocess(dataDir)), Clock.systemUTC());
        host.start();
        return host;
    }

    @AfterEach
    void stop() {
        if (host != null) host.close();
        if (store != null) store.close();
    }

    @Test
    void archivesAreReadableByTheServersUserOnly() throws IOException {
        host(0, 0);
        SandboxRecord sbx = host.create(ALICE, SandboxRequest.defaults());
        host.workspace(ALICE, sbx.id()).write("f.txt", new java.io.ByteArrayInputStream("x".getBytes()));
        CheckpointRecord cp = host.checkpoint(ALICE, sbx.id());
        Path dir = dataDir.resolve("checkpoints");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir))).isEqualTo("rwx------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve(cp.id() + ".tar")))).isEqualTo("rw-------");
    }

    @Test
    void aCheckpointLargerThanTheCapIsRefusedAndLeavesNoFile() throws IOException {
        host(64 * 1024, 0);
        SandboxRecord sbx = host.create(ALICE, SandboxRequest.defaults());
        Workspace ws = host.workspace(ALICE, sbx.id());
        ws.write("small.txt", new java.io.ByteArrayInputStream(new byte[1000]));
        host.checkpoint(ALICE, sbx.id());
        byte[] noise = new byte[256 * 1024];
        new java.util.Random(7).nextBytes(noise);
        ws.write("big.bin", new java.io.ByteArrayInputStream(noise));
        assertThatThrownBy(() -> host.checkpoint(ALICE, sbx.id())).isInstanceOfSatisfying(PaddockException.class,
                e -> assertThat(e.code()).isEqualTo("checkpoint_too_large"));
        assertThat(host.checkpoints(ALICE, sbx.id(), PageRequest.first(10)).data()).hasSize(1);
        try (Stream<Path> files = Files.walk(dataDir.resolve("checkpoints"))) { // partials included: none is left
            assertThat(files.filter(Files::isRegularFile).toList()).hasSize(1).allMatch(p -> p.toString().endsWith(".tar"));
        }
    }

    @Test
    void sparseFilesMakeSmallCheckpointsAndComeBackSparse() throws Exception {
        host(64 * 1024, 0);
        SandboxRecord sbx = host.create(ALICE, SandboxRequest.defaults());
        Path dir = workspaceDir(sbx);
        try (var f = new java.io.RandomAccessFile(dir.resolve("hole").toFile(), "rw")) {
            f.setLength(2L << 30); // `truncate -s 2G`
        }
        try (var f = new java.io.RandomAccessFile(dir.resolve("islands").toFile(), "rw")) {
            f.setLength(3L << 30);
            f.seek(1L << 30);
            f.write("island".getBytes());
        }
        CheckpointRecord cp = host.checkpoint(ALICE, sbx.id());
        assertThat(cp.sizeBytes()).isLessThan(64 * 1024);
        Files.delete(dir.resolve("hole"));
        Files.delete(dir.resolve("islands"));

        host.restore(ALICE, sbx.id(), cp.id());
        assertThat(Files.size(dir.resolve("hole"))).isEqualTo(2L << 30);
        assertThat(Files.size(dir.resolve("islands"))).isEqualTo(3L << 30);
        assertThat(blocks(dir.resolve("hole")) + blocks(dir.resolve("islands"))).isLessThan(1024);
        try (var f = new java.io.RandomAccessFile(dir.resolve("islands").toFile(), "r")) {
            byte[] b = new byte[6];
            f.seek(1L << 30);
            f.readFully(b);
            assertThat(new String(b)).isEqualTo("island");
        }
    }

    @Test
    void aRestoreFromABrokenArchiveLeavesTheWorkspaceAsItWas() throws IOException {
        host(0, 0);
        SandboxRecord sbx = host.create(ALICE, SandboxRequest.defaults());
        Workspace ws = host.workspace(ALICE, sbx.id());
        for (int i = 0; i < 200; i++) ws.write("a/f" + i, new java.io.ByteArrayInputStream(("v1 " + i).getBytes()));
        CheckpointRecord cp = host.checkpoint(ALICE, sbx.id());
        ws.write("after.txt", new java.io.ByteArrayInputStream("written after the checkpoint".getBytes()));
        Path archive = dataDir.resolve("checkpoints").resolve(cp.id() + ".tar");
        byte[] whole = Files.readAllBytes(archive);
        Files.write(archive, java.util.Arrays.copyOf(whole, whole.length / 2)); // cut off midway

        assertThatThrownBy(() -> host.restore(ALICE, sbx.id(), cp.id())).isInstanceOfSatisfying(PaddockException.class,
                e -> assertThat(e.code()).isEqualTo("invalid_tar"));
        Path dir = workspaceDir(sbx);
        assertThat(Files.readString(dir.resolve("after.txt"))).isEqualTo("written after the checkpoint");
        try (Stream<Path> files = Files.list(dir.resolve("a"))) {
            assertThat(files.count()).isEqualTo(200);
        }
        try (Stream<Path> staged = Files.list(dir.resolveSibling(".staging"))) {
            assertThat(staged.toList()).isEmpty();
        }
    }

    @Test
    void partialArchivesOfADeadHostAreDeletedAtStart() throws IOException {
        Path dir = Files.createDirectories(dataDir.resolve("checkpoints"));
        Path partial = Files.writeString(dir.resolve("cp_dead.tar.partial"), "cut short");
        host(0, 0);
        assertThat(partial).doesNotExist();
    }

    private Path workspaceDir(SandboxRecord sbx) {
        return dataDir.resolve("subprocess/sandboxes").resolve(sbx.id()).resolve("workspace");
    }

    private static long blocks(Path p) throws Exception {
        Process stat = new ProcessBuilder("stat", "-c", "%b", p.toString()).start();
        String out = new String(stat.getInputStream().readAllBytes()).trim();
        assertThat(stat.waitFor()).isZero();
        return Long.parseLong(out);
    }

    @Test
    void aTenantsCheckpointsTogetherStayWithinItsQuotaAndDeletingFreesIt() throws IOException {
        host(0, 40 * 1024);
        SandboxRecord sbx = host.create(ALICE, SandboxRequest.defaults());
        host.workspace(ALICE, sbx.id()).write("f.bin", new java.io.ByteArrayInputStream(new byte[15 * 1024]));
        CheckpointRecord first = host.checkpoint(ALICE, sbx.id());
        CheckpointRecord second = host.checkpoint(ALICE, sbx.id());
        assertThatThrownBy(() -> host.checkpoint(ALICE, sbx.id())).isInstanceOfSatisfying(PaddockException.class,
                e -> assertThat(e.code()).isEqualTo("storage_quota_exceeded"));
        // another tenant has its own quota
        SandboxRecord bobs = host.create(BOB, SandboxRequest.defaults());
        host.checkpoint(BOB, bobs.id());
        // deleting is tenant-scoped: Bob cannot delete Alice's, and names must match the sandbox
        assertThatThrownBy(() -> host.deleteCheckpoint(BOB, bobs.id(), first.id())).isInstanceOfSatisfying(PaddockException.class,
                e -> assertThat(e.code()).isEqualTo("not_found"));
        assertThatThrownBy(() -> host.deleteCheckpoint(BOB, sbx.id(), first.id())).isInstanceOfSatisfying(PaddockException.class,
                e -> assertThat(e.code()).isEqualTo("not_found"));
        host.deleteCheckpoint(ALICE, sbx.id(), first.id());
        assertThat(dataDir.resolve("checkpoints").resolve(first.id() + ".tar")).doesNotExist();
        assertThat(host.checkpoints(ALICE, sbx.id(), PageRequest.first(10)).data()).extracting(CheckpointRecord::id).containsExactly(second.id());
        assertThatThrownBy(() -> host.deleteCheckpoint(ALICE, sbx.id(), first.id())).isInstanceOfSatisfying(PaddockException.class,
                e -> assertThat(e.code()).isEqualTo("not_found"));
        assertThat(host.checkpoint(ALICE, sbx.id()).sizeBytes()).isPositive();
    }

    @Test
    void purgeRemovesTheSandboxsCheckpoints() throws IOException {
        host(0, 0);
        SandboxRecord sbx = host.create(ALICE, SandboxRequest.defaults());
        CheckpointRecord cp = host.checkpoint(ALICE, sbx.id());
        host.delete(ALICE, sbx.id());
        host.purge(ALICE, sbx.id());
        assertThat(dataDir.resolve("checkpoints").resolve(cp.id() + ".tar")).doesNotExist();
        assertThat(host.checkpoints(ALICE, sbx.id(), PageRequest.first(10)).data()).isEmpty();
        assertThatThrownBy(() -> host.checkpointData(ALICE, cp.id())).isInstanceOf(PaddockException.class);
    }

    @Test
    void aDiskLimitOnADriverThatCannotEnforceItIsRefused() {
        host(0, 0);
        SandboxRequest asks = new SandboxRequest(null, null, false, Limits.DEFAULT.withDisk(1L << 30), null, null, null, null, null);
        assertThatThrownBy(() -> host.create(ALICE, asks)).isInstanceOfSatisfying(PaddockException.class,
                e -> assertThat(e.code()).isEqualTo("disk_quota_unavailable"));
    }
}
