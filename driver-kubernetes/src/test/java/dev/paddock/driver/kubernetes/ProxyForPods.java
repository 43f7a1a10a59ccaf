package dev.paddock.driver.kubernetes;

import dev.paddock.egress.ProxyEgressPort;
import dev.paddock.egress.proxy.EgressConfig;
import dev.paddock.egress.proxy.EgressProxy;
import dev.paddock.egress.tls.CertificateAuthority;
import dev.paddock.egress.vault.Vault;
import dev.paddock.egress.vault.VaultKey;
import dev.paddock.store.JdbcStore;
import java.nio.file.Path;

/** Paddock's real egress proxy for a test's pods: its SQLite store (audit, secrets), the vault and the port sandboxes attach to. */
record ProxyForPods(JdbcStore store, Vault vault, EgressProxy proxy, ProxyEgressPort port) implements AutoCloseable {
    static ProxyForPods open(Path dir, EgressConfig config) {
        JdbcStore store = JdbcStore.openSqlite(dir.resolve("paddock.db"));
        Vault vault = new Vault(store.secrets(), VaultKey.fromDataDir(dir));
        EgressProxy proxy = new EgressProxy(config, store.egressAudit(), CertificateAuthority.ephemeral("Paddock test installation CA"));
        return new ProxyForPods(store, vault, proxy, new ProxyEgressPort(proxy, vault, dir.resolve("data")));
    }

    @Override
    public void close() {
        port.close();
        proxy.close();
        store.close();
    }
}
