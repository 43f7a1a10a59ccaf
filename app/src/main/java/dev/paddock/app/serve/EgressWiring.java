package dev.paddock.app.serve;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.egress.ProxyEgressPort;
import dev.paddock.egress.proxy.EgressConfig;
import dev.paddock.egress.proxy.EgressProxy;
import dev.paddock.egress.tls.CertificateAuthority;
import dev.paddock.egress.vault.Vault;
import dev.paddock.egress.vault.VaultKey;
import dev.paddock.store.JdbcStore;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The egress side of the composition: the vault (key from {@code PADDOCK_VAULT_KEY}, else {@code <dataDir>/vault.key}),
 * the installation CA, one {@link EgressProxy} writing its audit to the store, and the {@link ProxyEgressPort} the
 * runtime host opens per sandbox.
 */
final class EgressWiring {
    private static final Logger log = LoggerFactory.getLogger(EgressWiring.class);
    static final String VAULT_KEY_ENV = "PADDOCK_VAULT_KEY";

    record Egress(Vault vault, ProxyEgressPort port) {}

    private EgressWiring() {}

    static Egress start(ServeSettings s, Path dataDir, JdbcStore store, List<AutoCloseable> started) {
        String envKey = System.getenv(VAULT_KEY_ENV);
        VaultKey key = envKey != null && !envKey.isBlank() ? VaultKey.fromEnvironment(VAULT_KEY_ENV) : VaultKey.fromDataDir(dataDir);
        Vault vault = new Vault(store.secrets(), key);
        EgressConfig config = EgressConfig.defaults();
        if (!s.egressTestLoopbackPorts().isEmpty()) {
            log.warn("!!! egress_test_loopback_ports={} is set: sandboxes may reach these host loopback ports through the egress proxy. "
                    + "This setting exists for tests only; never set it on a real server. !!!", s.egressTestLoopbackPorts());
            config = config.allowLoopbackUpstreamPorts(s.egressTestLoopbackPorts());
        }
        if (s.egressUpstreamCaFile() != null) config = config.upstreamTls(defaultTrustPlus(s.egressUpstreamCaFile()));
        EgressProxy proxy = new EgressProxy(config, store.egressAudit(), CertificateAuthority.loadOrCreate(dataDir));
        started.add(proxy);
        ProxyEgressPort port = new ProxyEgressPort(proxy, vault, dataDir);
        started.add(port);
        return new Egress(vault, port);
    }

    /** The JDK's trusted CAs plus the certificates in {@code pemFile} (e.g. a company CA in front of the internet). */
    static SSLContext defaultTrustPlus(Path pemFile) {
        try {
            KeyStore extra = KeyStore.getInstance(KeyStore.getDefaultType());
            extra.load(null, null);
            int i = 0;
            try (InputStream in = Files.newInputStream(pemFile)) {
                for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) extra.setCertificateEntry("extra-" + i++, c);
            }
            if (i == 0) throw new PaddockException(ErrorCode.INVALID_CONFIG, "egress_upstream_ca_file " + pemFile + " holds no PEM certificate");
            X509TrustManager jdk = trustManager(null);
            X509TrustManager added = trustManager(extra);
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(null, new TrustManager[] {new EitherTrustManager(jdk, added)}, null);
            return ctx;
        } catch (IOException e) {
            throw new PaddockException(ErrorCode.INVALID_CONFIG, "cannot read egress_upstream_ca_file " + pemFile + ": " + e.getMessage());
        } catch (GeneralSecurityException e) {
            throw new PaddockException(ErrorCode.INVALID_CONFIG, "egress_upstream_ca_file " + pemFile + " is not usable: " + e.getMessage());
        }
    }

    private static X509TrustManager trustManager(KeyStore ks) throws GeneralSecurityException {
        TrustManagerFactory f = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        f.init(ks);
        for (TrustManager tm : f.getTrustManagers()) if (tm instanceof X509TrustManager x) return x;
        throw new GeneralSecurityException("no X509 trust manager");
    }

    /** Trusts a server chain that either trust manager accepts. */
    private record EitherTrustManager(X509TrustManager first, X509TrustManager second) implements X509TrustManager {
        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            throw new CertificateException("the egress proxy does not accept client certificates");
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            try {
                first.checkServerTrusted(chain, authType);
            } catch (CertificateException e) {
                second.checkServerTrusted(chain, authType);
            }
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            X509Certificate[] a = first.getAcceptedIssuers();
            X509Certificate[] b = second.getAcceptedIssuers();
            X509Certificate[] out = Arrays.copyOf(a, a.length + b.length);
            System.arraycopy(b, 0, out, a.length, b.length);
            return out;
        }
    }
}
