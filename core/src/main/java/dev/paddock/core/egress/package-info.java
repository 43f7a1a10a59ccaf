/**
 * The egress side of the domain: the ports the egress module writes to and the store implements
 * ({@link dev.paddock.core.egress.SecretRepository}, {@link dev.paddock.core.egress.EgressAuditLog} with its
 * records), the port the API manages secrets through and the egress module's vault implements
 * ({@link dev.paddock.core.egress.SecretVault}, with the redacted {@link dev.paddock.core.egress.SecretValue}), and
 * the syntax shared by the API and the proxy (allowed-host entries, header names).
 */
package dev.paddock.core.egress;
