/**
 * The egress module: {@link dev.paddock.egress.ProxyEgressPort}, the host's {@code EgressPort}, on top of
 * <ul>
 *   <li>{@code proxy} — the proxy itself: listeners, one connection per client, strict HTTP/1.x heads and body
 *       framing, upstream connections, time limits, the audit record of each connection and the injection of a
 *       sandbox's credentials;</li>
 *   <li>{@code policy} — what may be reached: the name-level rules of a network policy and the address guard;</li>
 *   <li>{@code tls} — interception: the installation CA and the server side of TLS as a channel;</li>
 *   <li>{@code vault} — secrets encrypted at rest and the rules that bind them to hosts.</li>
 * </ul>
 * Dependencies point one way: {@code proxy} uses the other three, which use only {@code core}.
 */
package dev.paddock.egress;
