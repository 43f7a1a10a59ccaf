/**
 * The egress side of the domain: the ports the egress module writes to and the store implements
 * ({@link dev.paddock.core.egress.SecretRepository}, {@link dev.paddock.core.egress.EgressAuditLog} with its
 * records), and the syntax shared by the API and the proxy (allowed-host entries, header names).
 */
package dev.paddock.core.egress;
