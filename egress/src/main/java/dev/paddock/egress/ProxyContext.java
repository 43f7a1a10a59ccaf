package dev.paddock.egress;

/** What every connection of one proxy shares. */
record ProxyContext(EgressConfig config, HttpHeads heads, AddressGuard guard, Watchdog watchdog,
                    EgressAuditSink sink, CertificateAuthority ca) {}
