/**
 * The kubernetes driver: each sandbox is a Pod whose {@code /workspace} is a PersistentVolumeClaim, fenced off by a
 * NetworkPolicy, run through the Kubernetes API with the fabric8 client on the JDK HTTP client; or, where the cluster
 * serves kubernetes-sigs/agent-sandbox and the operator asks for it, a {@code Sandbox} object whose controller makes
 * that pod.
 */
package dev.paddock.driver.kubernetes;
