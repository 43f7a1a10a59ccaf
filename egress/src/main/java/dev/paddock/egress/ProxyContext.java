package dev.paddock.egress;

import dev.paddock.core.egress.EgressAuditSink;

/** What every connection of one proxy shares. */
record ProxyContext(EgressConfig config, HttpHeads heads, AddressGuard guard, Watchdog watchdog,
                    EgressAuditSink sink, CertificateAuthority ca) {}
