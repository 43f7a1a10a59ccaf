/**
 * The kubernetes driver: each sandbox is a Pod whose {@code /workspace} is a PersistentVolumeClaim, fenced off by a
 * NetworkPolicy, run through the Kubernetes API with the fabric8 client on the JDK HTTP client.
 */
package dev.paddock.driver.kubernetes;
