package dev.paddock.egress.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.core.spi.NetworkPolicy;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * DNS cannot carry data out of a sandbox: the proxy decides by name and resolves only names its policy allows, so a
 * name outside the allowlist never reaches a DNS server, however the sandbox presents it — a CONNECT target, an
 * absolute URL, a Host header, a TLS server name. The proxy resolves through a real DNS server on loopback that
 * counts every query (the proxy's resolver setting points at it).
 */
class DnsStaysInsideThePolicyTest {
    LoopbackDnsServer dns;
    Upstreams upstreams;
    EgressProxy proxy;

    @BeforeEach
    void start() throws IOException {
        dns = new LoopbackDnsServer();
        upstreams = new Upstreams();
        proxy = new EgressProxy(EgressConfig.defaults().resolver(dns.resolver())
                .allowLoopbackUpstreamPorts(Set.of(upstreams.httpPort(), upstreams.httpsPort())), new InMemoryEgressAuditSink(), null);
    }

    @AfterEach
    void stop() throws InterruptedException {
        proxy.close();
        upstreams.close();
        dns.close();
    }

    @Test
    void anAllowedNameIsResolvedThroughTheCountingServer() throws Exception {
        try (var l = proxy.listenTcp("sbx_dns_ok", Fixture.limited("api.test:" + upstreams.httpPort()), null)) {
            String status = exchange(l, "GET http://api.test:" + upstreams.httpPort() + "/hello HTTP/1.1\r\nHost: api.test\r\n\r\n");
            assertThat(status).contains(" 200 ");
        }
        assertThat(dns.queriesFor("api.test")).as("the count this test relies on works").isPositive();
    }

    @Test
    void namesOutsideTheAllowlistAreNeverResolvedHoweverTheyArrive() throws Exception {
        int http = upstreams.httpPort();
        int https = upstreams.httpsPort();
        try (var l = proxy.listenTcp("sbx_dns_leak", Fixture.limited("api.test:" + http, "api.test:" + https), null)) {
            assertThat(exchange(l, "CONNECT c2lkZS1jaGFubmVs.refused.test:443 HTTP/1.1\r\nHost: c2lkZS1jaGFubmVs.refused.test:443\r\n\r\n"))
                    .as("CONNECT to a refused name").contains(" 403 ");
            assertThat(exchange(l, "GET http://absolute.refused.test/x HTTP/1.1\r\nHost: absolute.refused.test\r\n\r\n"))
                    .as("plain HTTP to a refused name").contains(" 403 ");
            assertThat(exchange(l, "GET /x HTTP/1.1\r\nHost: origin-form.refused.test\r\n\r\n"))
                    .as("a request naming its host only in the Host header").doesNotContain(" 200 ");
            assertThat(exchange(l, "GET http://api.test:" + http + "/x HTTP/1.1\r\nHost: host-header.refused.test\r\n\r\n"))
                    .as("an allowed URL with a refused Host header goes to the URL's host").contains(" 200 ");
            tlsWithServerName(l, "api.test:" + https, "sni.refused.test");
        }
        try (var none = proxy.listenTcp("sbx_dns_none", NetworkPolicy.NONE, null)) {
            assertThat(exchange(none, "CONNECT mode-none.refused.test:443 HTTP/1.1\r\nHost: mode-none.refused.test:443\r\n\r\n")).contains(" 403 ");
        }
        assertThat(dns.queriesFor("refused.test")).as("queries for refused names; all queries: %s", dns.queries()).isZero();
        assertThat(dns.queries()).isNotEmpty().allMatch(q -> q.equals("api.test"));
    }

    /** Sends one request head on a new connection and answers the response's status line. */
    private static String exchange(ProxyListener l, String head) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), l.tcpPort())) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            String line = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII)).readLine();
            return line == null ? "" : line;
        }
    }

    /** Opens a tunnel to an allowed target, then starts TLS in it with another server name; the handshake's outcome does not matter. */
    private static void tlsWithServerName(ProxyListener l, String target, String serverName) throws Exception {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), l.tcpPort())) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(("CONNECT " + target + " HTTP/1.1\r\nHost: " + target + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            var in = s.getInputStream();
            StringBuilder headers = new StringBuilder();
            while (!headers.toString().endsWith("\r\n\r\n")) {
                int b = in.read();
                if (b < 0) break;
                headers.append((char) b);
            }
            assertThat(headers.toString()).as("the tunnel to the allowed target").startsWith("HTTP/1.1 200");
            SSLSocket tls = (SSLSocket) SSLContext.getDefault().getSocketFactory().createSocket(s, serverName, 443, false);
            SSLParameters params = tls.getSSLParameters();
            params.setServerNames(List.of(new SNIHostName(serverName)));
            tls.setSSLParameters(params);
            try {
                tls.startHandshake();
            } catch (IOException expected) {
                // the upstream's certificate is for another name: the handshake fails, after the server name went through
            }
        }
    }
}
