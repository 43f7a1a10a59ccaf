package dev.paddock.app.serve;

import dev.paddock.agents.ResourceSecrets;
import dev.paddock.core.egress.SecretValue;
import dev.paddock.egress.vault.Vault;

/** Session resources' repository tokens in the server's vault (AES-GCM at rest, like every secret). */
final class VaultResourceSecrets implements ResourceSecrets {
    private final Vault vault;

    VaultResourceSecrets(Vault vault) {
        this.vault = vault;
    }

    @Override
    public String seal(String tenantId, String name, SecretValue token) {
        return vault.create(tenantId, name, token).id();
    }

    @Override
    public void replace(String tenantId, String secretId, SecretValue token) {
        vault.rotate(tenantId, secretId, token);
    }

    @Override
    public SecretValue reveal(String tenantId, String secretId) {
        return vault.reveal(tenantId, secretId);
    }

    @Override
    public void delete(String tenantId, String secretId) {
        vault.delete(tenantId, secretId);
    }
}
