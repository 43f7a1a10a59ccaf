package dev.paddock.egress.proxy;

import dev.paddock.core.egress.HostName;
import dev.paddock.egress.policy.CheckedTarget;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Inet6Address;
import java.net.SocketTimeoutException;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

/** A TCP connection to a checked destination address, optionally wrapped in verified TLS. */
final class Upstream implements Closeable {
    final SocketChannel channel;
    final String address;
    private final SSLSocket tls;
    final InputStream in;
    final OutputStream out;

    private Upstream(SocketChannel channel, String address, SSLSocket tls, InputStream in, OutputStream out) {
        this.channel = channel;
        this.address = address;
        this.tls = tls;
        this.in = in;
        this.out = out;
    }

    /** Connects to the first reachable address of {@code target}; never resolves the name again. */
    static Upstream connect(CheckedTarget target, Duration timeout, Activity activity, Meter meter, SSLContext tlsContext) throws IOException {
        IOException last = null;
        for (int i = 0; i < target.addresses().size(); i++) {
            SocketChannel ch = SocketChannel.open(target.addresses().get(i) instanceof Inet6Address
                    ? StandardProtocolFamily.INET6 : StandardProtocolFamily.INET);
            activity.attach(ch);
            try {
                ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                ch.socket().connect(target.socketAddress(i), (int) Math.min(Integer.MAX_VALUE, timeout.toMillis()));
                String address = target.addresses().get(i).getHostAddress();
                if (tlsContext == null) {
                    return new Upstream(ch, address, null,
                            ChannelStreams.input(ch, activity, meter::addDown), ChannelStreams.output(ch, activity, meter::addUp));
                }
                SSLSocket s = (SSLSocket) tlsContext.getSocketFactory().createSocket(ch.socket(), target.host(), target.port(), true);
                activity.attach(s);
                SSLParameters p = s.getSSLParameters();
                p.setEndpointIdentificationAlgorithm("HTTPS");
                if (!HostName.isIpLiteral(target.host())) p.setServerNames(List.of(new SNIHostName(target.host())));
                p.setApplicationProtocols(new String[] {"http/1.1"});
                s.setSSLParameters(p);
                // a server that does not speak TLS on this port may never answer: the handshake gets the connect timeout
                s.setSoTimeout((int) Math.min(Integer.MAX_VALUE, timeout.toMillis()));
                try {
                    s.startHandshake();
                } catch (SocketTimeoutException e) {
                    throw new SSLHandshakeException("the upstream did not complete a TLS handshake in time");
                }
                s.setSoTimeout(0);
                return new Upstream(ch, address, s,
                        ChannelStreams.metered(s.getInputStream(), activity, meter::addDown),
                        ChannelStreams.metered(s.getOutputStream(), activity, meter::addUp));
            } catch (IOException e) {
                ch.close();
                last = e;
            }
        }
        throw last;
    }

    boolean isTls() { return tls != null; }

    @Override
    public void close() {
        try {
            if (tls != null) tls.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        try {
            channel.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
