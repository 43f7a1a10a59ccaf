package dev.paddock.access;

/**
 * Who is calling: the tenant whose resources they may see, and whether they may manage API keys. An admin key of
 * the operator tenant ({@link ApiKeys#OPERATOR_TENANT}) is the operator's: it manages every tenant's keys, while
 * any other admin key manages only its own tenant's (docs/SECURITY.md, "API keys").
 */
public record Principal(String tenantId, String keyId, boolean admin) {
    public boolean operator() {
        return admin && ApiKeys.OPERATOR_TENANT.equals(tenantId);
    }
}
