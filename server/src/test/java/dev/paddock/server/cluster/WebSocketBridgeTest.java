package dev.paddock.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The bridge's holder side against a fake holder socket: a real hung node cannot be made to hang on cue. */
class WebSocketBridgeTest {

    @Test
    void aHolderThatStopsReadingIsCutOnceTheClientHasClosed() throws Exception {
        FakeHolder holder = new FakeHolder(new CompletableFuture<>()); // the write to it never finishes
        WebSocketBridge bridge = new WebSocketBridge(Duration.ofMillis(50));
        bridge.connected(holder);
        bridge.onWebSocketPartialText("stuck", true);

        bridge.onWebSocketClose(1000, "bye");

        assertThat(holder.aborted.await(30, TimeUnit.SECONDS)).as("the holder's socket is aborted").isTrue();
        assertThat(holder.closeSent).as("no close is queued behind a write that never ends").isFalse();
    }

    @Test
    void aHolderThatAnswersTheCloseIsLeftToEndCleanly() throws Exception {
        FakeHolder holder = new FakeHolder(CompletableFuture.completedFuture(null));
        holder.answersClose = true;
        WebSocketBridge bridge = new WebSocketBridge(Duration.ofMillis(50));
        bridge.connected(holder);

        bridge.onWebSocketClose(1000, "bye");

        assertThat(holder.closeSent).isTrue();
        assertThat(holder.aborted.await(500, TimeUnit.MILLISECONDS)).as("not aborted").isFalse();
    }

    /** A holder socket whose writes finish when {@code writes} does. */
    private static final class FakeHolder implements WebSocket {
        final CompletableFuture<WebSocket> writes;
        final CountDownLatch aborted = new CountDownLatch(1);
        volatile boolean closeSent;
        volatile boolean answersClose;

        FakeHolder(CompletableFuture<WebSocket> writes) {
            this.writes = writes;
        }

        @Override public CompletableFuture<WebSocket> sendText(CharSequence data, boolean last) { return writes; }
        @Override public CompletableFuture<WebSocket> sendBinary(ByteBuffer data, boolean last) { return writes; }
        @Override public CompletableFuture<WebSocket> sendPing(ByteBuffer message) { return writes; }
        @Override public CompletableFuture<WebSocket> sendPong(ByteBuffer message) { return writes; }
        @Override public CompletableFuture<WebSocket> sendClose(int statusCode, String reason) {
            closeSent = true;
            return CompletableFuture.completedFuture(this);
        }
        @Override public void request(long n) {}
        @Override public String getSubprotocol() { return ""; }
        @Override public boolean isOutputClosed() { return closeSent; }
        @Override public boolean isInputClosed() { return answersClose && closeSent; }
        @Override public void abort() { aborted.countDown(); }
    }
}
