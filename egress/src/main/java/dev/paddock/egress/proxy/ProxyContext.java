package dev.paddock.egress.proxy;

import dev.paddock.core.egress.EgressAuditSink;
import dev.paddock.egress.policy.AddressGuard;
import dev.paddock.egress.tls.CertificateAuthority;

/** What every connection of one proxy shares. */
record ProxyContext(EgressConfig config, HttpHeads heads, AddressGuard guard, Watchdog watchdog,
                    EgressAuditSink sink, CertificateAuthority ca) {}
