package dev.paddock.driver.docker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The HTTP/1.1 client against a real unix-socket server that answers with fixed bytes. */
class EngineHttpTest {
    Path dir;
    Path socket;
    ServerSocketChannel server;

    @BeforeEach
    void listen() throws IOException {
        dir = Files.createTempDirectory(Path.of("/tmp"), "eh");
        socket = dir.resolve("s.sock");
        server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(socket));
    }

    @AfterEach
    void close() throws IOException {
        server.close();
        Files.deleteIfExists(socket);
        Files.deleteIfExists(dir);
    }

    /** Accepts one connection, returns what the client sent (until its chunked body ended, or its head) after answering. */
    private CompletableFuture<String> answerOnce(String answer, boolean chunkedRequest) {
        return CompletableFuture.supplyAsync(() -> {
            try (SocketChannel c = server.accept()) {
                InputStream in = Channels.newInputStream(c);
                ByteArrayOutputStream seen = new ByteArrayOutputStream();
                String end = chunkedRequest ? "\r\n0\r\n\r\n" : "\r\n\r\n";
                while (!seen.toString(StandardCharsets.ISO_8859_1).endsWith(end)) {
                    int b = in.read();
                    if (b < 0) break;
                    seen.write(b);
                }
                Channels.newOutputStream(c).write(answer.getBytes(StandardCharsets.ISO_8859_1));
                return seen.toString(StandardCharsets.ISO_8859_1);
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });
    }

    @Test
    void aChunkedAnswerIsReadWhole() throws Exception {
        CompletableFuture<String> request = answerOnce("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nApi-Version: 1.41\r\n\r\n"
                + "5\r\nhello\r\n7; ext=1\r\n, world\r\n0\r\n\r\n", false);

        EngineHttp.Response r = new EngineHttp(socket).send("GET", "/v1.41/info", null, Duration.ofSeconds(5));

        assertThat(r.status()).isEqualTo(200);
        assertThat(r.text()).isEqualTo("hello, world");
        assertThat(r.headers()).containsEntry("api-version", "1.41");
        assertThat(request.get()).startsWith("GET /v1.41/info HTTP/1.1\r\n").contains("Content-Length: 0\r\n");
    }

    @Test
    void aStreamedBodyIsSentChunked() throws Exception {
        CompletableFuture<String> request = answerOnce("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}", true);

        EngineHttp.Response r = new EngineHttp(socket).stream("POST", "/v1.41/images/create", "application/x-tar",
                out -> out.write("tar-bytes".getBytes(StandardCharsets.UTF_8)), Duration.ofSeconds(5));

        assertThat(r.text()).isEqualTo("{}");
        assertThat(request.get()).contains("Transfer-Encoding: chunked\r\n", "Content-Type: application/x-tar\r\n")
                .endsWith("\r\n\r\n9\r\ntar-bytes\r\n0\r\n\r\n");
    }

    @Test
    void anEngineThatNeverAnswersTimesOut() {
        // accepted by the kernel's backlog, never answered
        assertThatThrownBy(() -> new EngineHttp(socket).send("GET", "/_ping", null, Duration.ofMillis(300)))
                .isInstanceOf(IOException.class).hasMessageContaining("did not answer GET /_ping within 300 ms");
    }

    @Test
    void multiplexedOutputIsJoinedAndTerminalOutputKept() {
        byte[] framed = {1, 0, 0, 0, 0, 0, 0, 3, 'o', 'u', 't', 2, 0, 0, 0, 0, 0, 0, 4, 'e', 'r', 'r', '\n'};
        assertThat(StreamFrames.text(framed)).isEqualTo("outerr\n");
        assertThat(StreamFrames.text("plain terminal text".getBytes(StandardCharsets.UTF_8))).isEqualTo("plain terminal text");
    }

    @Test
    void apiVersionsCompareNumerically() {
        assertThat(DockerEngine.atLeast("1.41", "1.41")).isTrue();
        assertThat(DockerEngine.atLeast("1.50", "1.41")).isTrue();
        assertThat(DockerEngine.atLeast("1.9", "1.41")).isFalse();
        assertThat(DockerEngine.atLeast("", "1.41")).isFalse();
    }
}
