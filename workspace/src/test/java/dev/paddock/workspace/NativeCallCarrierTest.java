package dev.paddock.workspace;

import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.core.testing.Carriers;
import java.io.FileOutputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Native calls made on virtual threads leave the carriers to other virtual threads: more calls blocked at once than
 * the scheduler has carriers (opens of FIFOs that no writer has opened yet) must not stop an unrelated virtual
 * thread from running, as they stopped every request of the server during bulk archive imports.
 */
class NativeCallCarrierTest {
    @TempDir
    Path dir;

    @Test
    void moreBlockedNativeCallsThanCarriersLeaveOtherVirtualThreadsRunning() throws Exception {
        int blocked = Carriers.count() + 2;
        List<Path> fifos = new ArrayList<>();
        for (int i = 0; i < blocked; i++) {
            Path fifo = dir.resolve("fifo-" + i);
            assertThat(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor()).isZero();
            fifos.add(fifo);
        }
        AtomicInteger opened = new AtomicInteger();
        List<Thread> readers = new ArrayList<>();
        for (Path fifo : fifos) {
            // open(O_RDONLY) of a FIFO blocks in the kernel until a writer opens it
            readers.add(Thread.ofVirtual().start(() -> {
                Posix.close(Posix.openat(Posix.AT_FDCWD, fifo.toString(), Posix.O_RDONLY, 0));
                opened.incrementAndGet();
            }));
        }
        try {
            Thread.sleep(300); // let the readers reach their open
            assertThat(Carriers.aVirtualThreadRunsWithin(Duration.ofSeconds(10))).as("a virtual thread ran while %d native calls blocked", blocked).isTrue();
            assertThat(opened).as("the blocked calls are still blocked").hasValue(0);
        } finally {
            for (Path fifo : fifos) {
                try (FileOutputStream writer = new FileOutputStream(fifo.toFile())) {
                    writer.flush(); // opening for writing releases the reader's open
                }
            }
            for (Thread r : readers) r.join(10_000);
        }
        assertThat(opened).hasValue(blocked);
    }
}
