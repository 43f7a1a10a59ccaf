package dev.paddock.egress.tls;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.assertj.core.api.Assertions.assertThat;

class CertificateAuthorityFileTest {
    @Test
    void theInstallationCaIsCreatedOnceAndLoadedAgain(@TempDir Path dataDir) throws Exception {
        CertificateAuthority first = CertificateAuthority.loadOrCreate(dataDir);
        CertificateAuthority again = CertificateAuthority.loadOrCreate(dataDir);

        assertThat(again.certificatePem()).isEqualTo(first.certificatePem());
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dataDir.resolve(CertificateAuthority.KEY_FILE)))).isEqualTo("rw-------");
        // the loaded key signs leaves that chain to the stored certificate
        assertThat(again.serverContext("api.example.com")).isNotNull();
    }
}
