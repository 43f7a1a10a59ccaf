/**
 * The Docker driver: each sandbox is a Docker container whose pid 1 is Paddock's init agent. It speaks the
 * documented Docker Engine API directly over the engine's unix socket (JDK {@code SocketChannel} with
 * {@code UnixDomainSocketAddress} and a small HTTP/1.1 client, JSON through the Jackson the project already uses)
 * rather than through docker-java, whose core and transport would add Guava, BouncyCastle, commons-io/lang and
 * Jackson 2 for a dozen stable calls; commands themselves never go through the engine (see {@link
 * dev.paddock.driver.docker.DockerDriver}).
 */
package dev.paddock.driver.docker;
