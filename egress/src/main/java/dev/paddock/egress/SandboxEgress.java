package dev.paddock.egress;

/** What one listener knows about its sandbox: its id, its rules and its credentials. */
record SandboxEgress(String sandboxId, EgressRules rules, SandboxCredentials credentials) {}
