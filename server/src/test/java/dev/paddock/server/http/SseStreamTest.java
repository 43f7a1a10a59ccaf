package dev.paddock.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.javalin.Javalin;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The one event-stream type on a real server: its exact wire format, its keepalive, and a client that leaves. */
class SseStreamTest {
    private static final byte[] EMPTY = "{}".getBytes(StandardCharsets.UTF_8);
    private Javalin app;

    @AfterEach
    void stop() {
        if (app != null) app.stop();
    }

    @Test
    void opensWritesEventsWithAndWithoutIdsKeepsAliveWhenSilentAndEnds() throws Exception {
        app = Javalin.create(c -> {
            c.startup.showJavalinBanner = false;
            c.routes.get("/events", ctx -> {
                SseStream out = SseStream.open(ctx, "stream open");
                out.event("evt_1", "message", "{\"a\":1}".getBytes(StandardCharsets.UTF_8));
                out.event("stdout", EMPTY);
                // nothing comes: the wait runs into the keepalive, which the stream sends
                out.next(new LinkedBlockingQueue<String>(), SseStream.KEEPALIVE.multipliedBy(2));
                out.end("end", EMPTY);
            });
        }).start("127.0.0.1", 0);

        HttpResponse<String> r = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.port() + "/events")).build(), HttpResponse.BodyHandlers.ofString());

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/event-stream"));
        assertThat(r.headers().firstValue("X-Accel-Buffering")).hasValue("no");
        assertThat(r.headers().firstValue("Cache-Control")).hasValue("no-store");
        assertThat(r.body()).isEqualTo(": stream open\n\n"
                + "id: evt_1\nevent: message\ndata: {\"a\":1}\n\n"
                + "event: stdout\ndata: {}\n\n"
                + ": keepalive\n\n"
                + "event: end\ndata: {}\n\n");
    }

    @Test
    void aWriteToAClientThatLeftThrowsClientGone() throws Exception {
        CompletableFuture<Boolean> gone = new CompletableFuture<>();
        app = Javalin.create(c -> {
            c.startup.showJavalinBanner = false;
            c.routes.get("/events", ctx -> {
                SseStream out = SseStream.open(ctx, "stream open");
                try {
                    while (true) out.next(new LinkedBlockingQueue<String>(), SseStream.KEEPALIVE);
                } catch (SseStream.ClientGone e) {
                    gone.complete(true);
                }
            });
        }).start("127.0.0.1", 0);

        try (Socket s = new Socket("127.0.0.1", app.port())) {
            s.getOutputStream().write("GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            s.setSoTimeout(10_000);
            InputStream in = s.getInputStream();
            String seen = "";
            while (!seen.contains(": stream open")) {
                int b = in.read();
                assertThat(b).as("the stream opened before the connection ended: %s", seen).isNotNegative();
                seen += (char) b;
            }
        }
        assertThat(gone.get(30, TimeUnit.SECONDS)).as("the stream noticed the client left").isTrue();
    }
}
