package dev.paddock.egress.tls;

import dev.paddock.core.PaddockException;
import dev.paddock.core.egress.HostName;
import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * The per-installation CA used to intercept TLS for credential hosts only. Generated once (EC P-256) into
 * {@code <dataDir>/egress-ca.key} (mode 0600) and {@code egress-ca.crt}; {@link #certificatePem()} is what the
 * driver installs in a sandbox's trust store. Leaf certificates are minted per host on demand and cached.
 */
public final class CertificateAuthority {
    public static final String KEY_FILE = "egress-ca.key";
    public static final String CERT_FILE = "egress-ca.crt";
    private static final Duration LEAF_LIFETIME = Duration.ofDays(30);
    private static final int MAX_CACHED_LEAVES = 1024;

    private final X509Certificate certificate;
    private final PrivateKey privateKey;
    private final SecureRandom random = new SecureRandom();
    private final Map<String, Leaf> leaves = new ConcurrentHashMap<>();

    private record Leaf(SSLContext context, Instant notAfter) {}

    private CertificateAuthority(X509Certificate certificate, PrivateKey privateKey) {
        this.certificate = certificate;
        this.privateKey = privateKey;
    }

    /** Loads the CA from {@code dataDir}, creating it on first use. */
    public static CertificateAuthority loadOrCreate(Path dataDir) {
        Path keyFile = dataDir.resolve(KEY_FILE);
        Path certFile = dataDir.resolve(CERT_FILE);
        try {
            Files.createDirectories(dataDir);
            if (!Files.exists(keyFile)) create(keyFile, certFile);
            return load(keyFile, certFile);
        } catch (IOException | GeneralSecurityException e) {
            throw PaddockException.internal("cannot load or create the egress CA in " + dataDir, e);
        }
    }

    /** A CA that lives only in memory (tests, one-off tools). */
    public static CertificateAuthority ephemeral(String commonName) {
        try {
            KeyPair kp = ecKeyPair();
            return new CertificateAuthority(selfSigned(kp, commonName), kp.getPrivate());
        } catch (GeneralSecurityException | IOException e) {
            throw PaddockException.internal("cannot create a CA", e);
        }
    }

    public X509Certificate certificate() { return certificate; }

    /** The CA certificate in PEM, for the sandbox trust store. */
    public String certificatePem() { return pem(certificate); }

    /** A trust context that trusts only this CA (for clients in tests and tools). */
    public SSLContext clientContext() {
        try {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(null, null);
            ks.setCertificateEntry("paddock-ca", certificate);
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(ks);
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(null, tmf.getTrustManagers(), null);
            return ctx;
        } catch (GeneralSecurityException | IOException e) {
            throw PaddockException.internal("cannot build a trust context", e);
        }
    }

    /** A server context presenting a certificate for {@code host} (a canonical name or IP literal), signed by this CA. */
    public SSLContext serverContext(String host) {
        Leaf leaf = leaves.get(host);
        if (leaf == null || leaf.notAfter().isBefore(Instant.now().plus(Duration.ofDays(1)))) {
            if (leaves.size() >= MAX_CACHED_LEAVES) leaves.clear();
            leaf = mintLeaf(host);
            leaves.put(host, leaf);
        }
        return leaf.context();
    }

    private Leaf mintLeaf(String host) {
        try {
            KeyPair kp = ecKeyPair();
            Instant now = Instant.now();
            Instant notAfter = now.plus(LEAF_LIFETIME);
            GeneralName san = HostName.isIpLiteral(host) ? new GeneralName(GeneralName.iPAddress, host) : new GeneralName(GeneralName.dNSName, host);
            var ext = new JcaX509ExtensionUtils();
            X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(certificate, serial(), Date.from(now.minus(Duration.ofHours(1))),
                    Date.from(notAfter), new X500Name("CN=" + (HostName.isIpLiteral(host) ? "ip" : host)), kp.getPublic())
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature))
                    .addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth))
                    .addExtension(Extension.subjectAlternativeName, false, new GeneralNames(san))
                    .addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(kp.getPublic()))
                    .addExtension(Extension.authorityKeyIdentifier, false, ext.createAuthorityKeyIdentifier(certificate));
            X509Certificate leafCert = new JcaX509CertificateConverter().getCertificate(b.build(signer(privateKey)));
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(null, null);
            char[] pw = "paddock".toCharArray();
            ks.setKeyEntry("leaf", kp.getPrivate(), pw, new Certificate[] {leafCert, certificate});
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(ks, pw);
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(kmf.getKeyManagers(), null, random);
            return new Leaf(ctx, notAfter);
        } catch (GeneralSecurityException | IOException | org.bouncycastle.operator.OperatorCreationException e) {
            throw PaddockException.internal("cannot mint a certificate for " + host, e);
        }
    }

    private static void create(Path keyFile, Path certFile) throws GeneralSecurityException, IOException {
        KeyPair kp = ecKeyPair();
        byte[] suffix = new byte[4];
        new SecureRandom().nextBytes(suffix);
        X509Certificate cert = selfSigned(kp, "Paddock egress CA " + HexFormat.of().formatHex(suffix));
        // PKCS#8 ("PRIVATE KEY") keeps the curve parameters, so the key loads back on any provider
        String keyPem = "-----BEGIN PRIVATE KEY-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(kp.getPrivate().getEncoded())
                + "\n-----END PRIVATE KEY-----\n";
        Path tmpKey = Files.createTempFile(keyFile.getParent(), ".egress-ca-", ".tmp", PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        try {
            Files.writeString(tmpKey, keyPem, StandardCharsets.US_ASCII);
            Files.createLink(keyFile, tmpKey); // fails if another process won the race; then its CA is used
            Files.writeString(certFile, pem(cert), StandardCharsets.US_ASCII);
        } catch (FileAlreadyExistsException e) {
            // keep the existing CA
        } finally {
            Files.deleteIfExists(tmpKey);
        }
    }

    private static CertificateAuthority load(Path keyFile, Path certFile) throws IOException, GeneralSecurityException {
        PrivateKey key;
        try (PEMParser p = new PEMParser(new StringReader(Files.readString(keyFile, StandardCharsets.US_ASCII)))) {
            Object o = p.readObject();
            var conv = new JcaPEMKeyConverter();
            if (o instanceof PEMKeyPair pair) key = conv.getKeyPair(pair).getPrivate();
            else if (o instanceof PrivateKeyInfo info) key = conv.getPrivateKey(info);
            else throw new GeneralSecurityException("unexpected content in " + keyFile.getFileName());
        }
        X509Certificate cert;
        try (var in = Files.newInputStream(certFile)) {
            cert = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
        return new CertificateAuthority(cert, key);
    }

    private static X509Certificate selfSigned(KeyPair kp, String commonName) throws GeneralSecurityException, IOException {
        Instant now = Instant.now();
        X500Name name = new X500Name("CN=" + commonName.replaceAll("[,=+<>#;\"\\\\]", "_") + ",O=Paddock");
        var ext = new JcaX509ExtensionUtils();
        X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(name, serial(), Date.from(now.minus(Duration.ofHours(1))),
                Date.from(now.plus(Duration.ofDays(3650))), name, kp.getPublic())
                .addExtension(Extension.basicConstraints, true, new BasicConstraints(0))
                .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign))
                .addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(kp.getPublic()));
        try {
            return new JcaX509CertificateConverter().getCertificate(b.build(signer(kp.getPrivate())));
        } catch (org.bouncycastle.operator.OperatorCreationException e) {
            throw new GeneralSecurityException(e);
        }
    }

    private static ContentSigner signer(PrivateKey key) throws org.bouncycastle.operator.OperatorCreationException {
        return new JcaContentSignerBuilder("SHA256withECDSA").build(key);
    }

    private static KeyPair ecKeyPair() throws GeneralSecurityException {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec("secp256r1"));
        return g.generateKeyPair();
    }

    private static BigInteger serial() {
        return new BigInteger(127, new SecureRandom()).add(BigInteger.ONE);
    }

    private static String pem(X509Certificate cert) {
        StringWriter out = new StringWriter();
        try (JcaPEMWriter w = new JcaPEMWriter(out)) {
            w.writeObject(cert);
        } catch (IOException e) {
            throw PaddockException.internal("cannot encode a certificate", e);
        }
        return out.toString();
    }

    @Override
    public String toString() { return "CertificateAuthority[" + certificate.getSubjectX500Principal().getName() + "]"; }
}
