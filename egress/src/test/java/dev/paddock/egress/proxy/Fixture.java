package dev.paddock.egress.proxy;

import dev.paddock.core.egress.EgressAuditRecord;
import dev.paddock.core.spi.NetworkPolicy;

import dev.paddock.egress.policy.HostResolver;
import dev.paddock.egress.tls.CertificateAuthority;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Upstreams + a proxy, with an in-memory audit sink standing in for the SQLite audit log (the store module depends
 * on this one, so egress tests cannot use it; the proxy on the real SQLite vault and audit log is tested by the
 * store's {@code EgressOnSqliteTest} and the app's {@code BwrapEgressEndToEndTest}). The proxy's resolver maps test names: {@code api.test} and {@code secure.test} to loopback
 * (reachable only on the upstream ports, through the test switch), {@code internal.test} to 10.0.0.1,
 * {@code metadata.test} to 169.254.169.254, {@code loop.test} to 127.0.0.1 and {@code mixed.test} to a public
 * address plus a private one.
 */
public final class Fixture implements AutoCloseable {
    static final Map<String, List<String>> NAMES = Map.of(
            "api.test", List.of("127.0.0.1"),
            "other.test", List.of("127.0.0.1"),
            "secure.test", List.of("127.0.0.1"),
            "internal.test", List.of("10.0.0.1"),
            "metadata.test", List.of("169.254.169.254"),
            "metadata6.test", List.of("fd00:ec2::254"),
            "loop.test", List.of("127.0.0.1"),
            "mapped.test", List.of("::ffff:10.1.2.3"),
            "mixed.test", List.of("93.184.216.34", "192.168.1.1"));

    public final Upstreams upstreams;
    final InMemoryEgressAuditSink inMemoryAudit = new InMemoryEgressAuditSink();
    final CertificateAuthority ca = CertificateAuthority.ephemeral("Paddock test installation CA");
    public final EgressProxy proxy;

    public Fixture() throws IOException {
        this(EgressConfig.defaults());
    }

    Fixture(EgressConfig base) throws IOException {
        upstreams = new Upstreams();
        HostResolver resolver = host -> {
            List<String> addresses = NAMES.get(host);
            if (addresses == null) throw new java.net.UnknownHostException(host);
            List<InetAddress> out = new java.util.ArrayList<>();
            for (String a : addresses) {
                if (a.startsWith("::ffff:")) {
                    // keep the IPv6 form: the guard must see through it
                    byte[] v4 = InetAddress.ofLiteral(a.substring(7)).getAddress();
                    byte[] v6 = new byte[16];
                    v6[10] = (byte) 0xff;
                    v6[11] = (byte) 0xff;
                    System.arraycopy(v4, 0, v6, 12, 4);
                    out.add(java.net.Inet6Address.getByAddress(host, v6, -1));
                } else {
                    out.add(InetAddress.getByAddress(host, InetAddress.ofLiteral(a).getAddress()));
                }
            }
            return out;
        };
        proxy = new EgressProxy(base.resolver(resolver)
                .allowLoopbackUpstreamPorts(Set.of(upstreams.httpPort(), upstreams.httpsPort()))
                .upstreamTls(upstreams.upstreamCa.clientContext()), inMemoryAudit, ca);
    }

    public static NetworkPolicy limited(String... hosts) {
        return new NetworkPolicy(NetworkPolicy.Mode.LIMITED, List.of(hosts), false);
    }

    public String httpUrl(String host, String path) { return "http://" + host + ":" + upstreams.httpPort() + path; }

    String httpsUrl(String host, String path) { return "https://" + host + ":" + upstreams.httpsPort() + path; }

    /** A client that uses the listener as its proxy and trusts {@code trust} for TLS. */
    static HttpClient client(ProxyListener listener, javax.net.ssl.SSLContext trust) {
        var b = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .proxy(ProxySelector.of(new InetSocketAddress(InetAddress.getLoopbackAddress(), listener.tcpPort())))
                .connectTimeout(Duration.ofSeconds(5));
        if (trust != null) b.sslContext(trust);
        return b.build();
    }

    static HttpResponse<String> get(HttpClient client, String url, String... headers) throws IOException, InterruptedException {
        var req = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10));
        for (int i = 0; i < headers.length; i += 2) req.header(headers[i], headers[i + 1]);
        return client.send(req.build(), HttpResponse.BodyHandlers.ofString());
    }

    Path tempSocket(Path dir, String name) { return dir.resolve(name + ".sock"); }

    @Override
    public void close() {
        proxy.close();
        upstreams.close();
    }

    /**
     * The audit records once at least {@code expected} have arrived: the proxy writes a request's record just after
     * the answer reached the client, so a test waits (bounded) for the records it expects rather than guessing when
     * the log has settled. Fails naming what did arrive when they do not come.
     */
    List<EgressAuditRecord> records(int expected) throws InterruptedException {
        return await(expected, inMemoryAudit::records);
    }

    /** As {@link #records(int)}, for one sandbox's records. */
    public List<EgressAuditRecord> recordsFor(String sandboxId, int expected) throws InterruptedException {
        return await(expected, () -> inMemoryAudit.forSandbox(sandboxId));
    }

    private static List<EgressAuditRecord> await(int expected, java.util.function.Supplier<List<EgressAuditRecord>> read) throws InterruptedException {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
        List<EgressAuditRecord> now = read.get();
        while (now.size() < expected) {
            if (System.nanoTime() > deadline) throw new AssertionError("expected " + expected + " audit records, got " + now.size() + ": " + now);
            Thread.sleep(10);
            now = read.get();
        }
        return now;
    }
}
