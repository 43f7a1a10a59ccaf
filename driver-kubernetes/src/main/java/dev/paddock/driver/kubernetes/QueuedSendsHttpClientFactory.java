package dev.paddock.driver.kubernetes;

import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import java.io.IOException;
import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.InetAddress;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

/**
 * fabric8's client on the JDK's HTTP client, with WebSocket sends queued. An exec's stdin goes out as one message per
 * chunk read, each sent as soon as it is read; the JDK's WebSocket refuses a message while the one before is still
 * being written ("Send pending"), which happens whenever the command reads slower than stdin arrives, and fabric8
 * then ends the exec with "could not send" and loses its result. Here each message waits for the one before, as the
 * other HTTP clients fabric8 supports do; fabric8 itself bounds what waits (16 MiB).
 */
final class QueuedSendsHttpClientFactory extends JdkHttpClientFactory {
    @Override
    protected HttpClient.Builder createNewHttpClientBuilder() {
        return new Builder(super.createNewHttpClientBuilder());
    }

    /** Builds a client whose WebSockets queue their sends; everything else is the JDK's. */
    private record Builder(HttpClient.Builder jdk) implements HttpClient.Builder {
        @Override public HttpClient.Builder cookieHandler(CookieHandler h) { jdk.cookieHandler(h); return this; }
        @Override public HttpClient.Builder connectTimeout(Duration d) { jdk.connectTimeout(d); return this; }
        @Override public HttpClient.Builder sslContext(SSLContext c) { jdk.sslContext(c); return this; }
        @Override public HttpClient.Builder sslParameters(SSLParameters p) { jdk.sslParameters(p); return this; }
        @Override public HttpClient.Builder executor(Executor e) { jdk.executor(e); return this; }
        @Override public HttpClient.Builder followRedirects(HttpClient.Redirect r) { jdk.followRedirects(r); return this; }
        @Override public HttpClient.Builder version(HttpClient.Version v) { jdk.version(v); return this; }
        @Override public HttpClient.Builder priority(int p) { jdk.priority(p); return this; }
        @Override public HttpClient.Builder proxy(ProxySelector p) { jdk.proxy(p); return this; }
        @Override public HttpClient.Builder authenticator(Authenticator a) { jdk.authenticator(a); return this; }
        @Override public HttpClient.Builder localAddress(InetAddress a) { jdk.localAddress(a); return this; }
        @Override public HttpClient build() { return new Client(jdk.build()); }
    }

    private static final class Client extends HttpClient {
        private final HttpClient jdk;

        Client(HttpClient jdk) {
            this.jdk = jdk;
        }

        @Override public WebSocket.Builder newWebSocketBuilder() { return new SocketBuilder(jdk.newWebSocketBuilder()); }
        @Override public Optional<CookieHandler> cookieHandler() { return jdk.cookieHandler(); }
        @Override public Optional<Duration> connectTimeout() { return jdk.connectTimeout(); }
        @Override public Redirect followRedirects() { return jdk.followRedirects(); }
        @Override public Optional<ProxySelector> proxy() { return jdk.proxy(); }
        @Override public SSLContext sslContext() { return jdk.sslContext(); }
        @Override public SSLParameters sslParameters() { return jdk.sslParameters(); }
        @Override public Optional<Authenticator> authenticator() { return jdk.authenticator(); }
        @Override public Version version() { return jdk.version(); }
        @Override public Optional<Executor> executor() { return jdk.executor(); }
        @Override public void shutdown() { jdk.shutdown(); }
        @Override public boolean awaitTermination(Duration d) throws InterruptedException { return jdk.awaitTermination(d); }
        @Override public boolean isTerminated() { return jdk.isTerminated(); }
        @Override public void shutdownNow() { jdk.shutdownNow(); }
        @Override public void close() { jdk.close(); }

        @Override
        public <T> HttpResponse<T> send(HttpRequest r, HttpResponse.BodyHandler<T> h) throws IOException, InterruptedException {
            return jdk.send(r, h);
        }

        @Override
        public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest r, HttpResponse.BodyHandler<T> h) {
            return jdk.sendAsync(r, h);
        }

        @Override
        public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest r, HttpResponse.BodyHandler<T> h, HttpResponse.PushPromiseHandler<T> p) {
            return jdk.sendAsync(r, h, p);
        }
    }

    private record SocketBuilder(WebSocket.Builder jdk) implements WebSocket.Builder {
        @Override public WebSocket.Builder header(String name, String value) { jdk.header(name, value); return this; }
        @Override public WebSocket.Builder connectTimeout(Duration d) { jdk.connectTimeout(d); return this; }
        @Override public WebSocket.Builder subprotocols(String first, String... more) { jdk.subprotocols(first, more); return this; }

        /** The listener is handed the queueing socket too: fabric8 sends through the one its callbacks get. */
        @Override
        public CompletableFuture<WebSocket> buildAsync(URI uri, WebSocket.Listener listener) {
            QueuingListener queuing = new QueuingListener(listener);
            return jdk.buildAsync(uri, queuing).thenApply(queuing::socket);
        }
    }

    /** Passes each event on with the one queueing socket of its JDK WebSocket. */
    private static final class QueuingListener implements WebSocket.Listener {
        private final WebSocket.Listener app;
        private QueuedSends socket; // made once, under the lock of socket(WebSocket)

        QueuingListener(WebSocket.Listener app) {
            this.app = app;
        }

        synchronized WebSocket socket(WebSocket jdk) {
            if (socket == null) socket = new QueuedSends(jdk);
            return socket;
        }

        @Override public void onOpen(WebSocket ws) { app.onOpen(socket(ws)); }
        @Override public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) { return app.onText(socket(ws), data, last); }
        @Override public CompletionStage<?> onBinary(WebSocket ws, ByteBuffer data, boolean last) { return app.onBinary(socket(ws), data, last); }
        @Override public CompletionStage<?> onPing(WebSocket ws, ByteBuffer message) { return app.onPing(socket(ws), message); }
        @Override public CompletionStage<?> onPong(WebSocket ws, ByteBuffer message) { return app.onPong(socket(ws), message); }
        @Override public CompletionStage<?> onClose(WebSocket ws, int status, String reason) { return app.onClose(socket(ws), status, reason); }
        @Override public void onError(WebSocket ws, Throwable error) { app.onError(socket(ws), error); }
    }

    /**
     * Each send starts once the one before has ended, whether that one succeeded or not (the JDK then fails the next
     * one with the socket's own reason). A close waits too, so it never cuts off data sent before it.
     */
    private static final class QueuedSends implements WebSocket {
        private final WebSocket jdk;
        private CompletableFuture<?> last = CompletableFuture.completedFuture(null);

        QueuedSends(WebSocket jdk) {
            this.jdk = jdk;
        }

        private synchronized CompletableFuture<WebSocket> after(Supplier<CompletableFuture<WebSocket>> send) {
            CompletableFuture<WebSocket> next = last.handle((done, failed) -> null).thenCompose(ignored -> send.get()).thenApply(ws -> this);
            last = next;
            return next;
        }

        @Override public CompletableFuture<WebSocket> sendText(CharSequence data, boolean isLast) { return after(() -> jdk.sendText(data, isLast)); }
        @Override public CompletableFuture<WebSocket> sendBinary(ByteBuffer data, boolean isLast) { return after(() -> jdk.sendBinary(data, isLast)); }
        @Override public CompletableFuture<WebSocket> sendPing(ByteBuffer message) { return after(() -> jdk.sendPing(message)); }
        @Override public CompletableFuture<WebSocket> sendPong(ByteBuffer message) { return after(() -> jdk.sendPong(message)); }
        @Override public CompletableFuture<WebSocket> sendClose(int status, String reason) { return after(() -> jdk.sendClose(status, reason)); }
        @Override public void request(long n) { jdk.request(n); }
        @Override public String getSubprotocol() { return jdk.getSubprotocol(); }
        @Override public boolean isOutputClosed() { return jdk.isOutputClosed(); }
        @Override public boolean isInputClosed() { return jdk.isInputClosed(); }
        @Override public void abort() { jdk.abort(); }
    }
}
