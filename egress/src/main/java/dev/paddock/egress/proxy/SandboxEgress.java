package dev.paddock.egress.proxy;

import dev.paddock.egress.policy.EgressRules;

/** What one listener knows about its sandbox: its id, its rules and its credentials. */
record SandboxEgress(String sandboxId, EgressRules rules, SandboxCredentials credentials) {}
