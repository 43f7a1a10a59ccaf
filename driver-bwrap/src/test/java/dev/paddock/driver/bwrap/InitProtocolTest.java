package dev.paddock.driver.bwrap;

import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.spi.Fence;
import dev.paddock.core.spi.SandboxSpec;
import dev.paddock.init.InitClient;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Malformed frames sent straight to a real init close the connection and leave init serving. */
@Tag("bwrap")
class InitProtocolTest {
    @Test
    void malformedFramesCloseTheConnectionOnly() throws Exception {
        Path data = Files.createTempDirectory(Path.of("/tmp"), "pdk");
        BwrapDriver driver = new BwrapDriver(BwrapConfig.defaults(data));
        var sandbox = driver.create(SandboxSpec.defaults("proto", "t"), new Fence("h", 1));
        Path socket = data.resolve("run/proto/init.sock");
        try {
            assertThat(closesAfter(socket, frame('Z', new byte[0]))).as("unknown type").isTrue();
            assertThat(closesAfter(socket, ByteBuffer.allocate(5).put((byte) 'E').putInt(0x7fff_ffff).flip())).as("huge length").isTrue();
            assertThat(closesAfter(socket, frame('E', new byte[] {0, 0, 0, 0, 0, 0, 0, 9, '/'}))).as("truncated string").isTrue();
            byte[] argcZero = ByteBuffer.allocate(4 + 4 + 1 + 4 + 4).putInt(0).putInt(1).put((byte) '/').putInt(0).putInt(0).array();
            assertThat(closesAfter(socket, frame('E', argcZero))).as("empty argv").isTrue();
            assertThat(new InitClient(socket).ping(Duration.ofSeconds(2))).isEqualTo(1);
            var r = new InitClient(socket).exec(ExecRequest.of("true"), ExecOutput.DISCARD, () -> 0).await();
            assertThat(r.exitCode()).isZero();
        } finally {
            driver.destroy(sandbox.ref());
            try (var tree = Files.walk(data)) {
                for (Path p : tree.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
            }
        }
    }

    private static ByteBuffer frame(char type, byte[] payload) {
        return ByteBuffer.allocate(5 + payload.length).put((byte) type).putInt(payload.length).put(payload).flip();
    }

    /** True when init answers the bytes with at most a failure frame and then end of stream. */
    private static boolean closesAfter(Path socket, ByteBuffer bytes) throws Exception {
        try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            ch.connect(UnixDomainSocketAddress.of(socket));
            ch.write(bytes);
            ByteBuffer in = ByteBuffer.allocate(4096);
            while (ch.read(in) >= 0) {
                if (!in.hasRemaining()) return false;
            }
            return in.position() == 0 || in.get(0) == 'F';
        }
    }
}
