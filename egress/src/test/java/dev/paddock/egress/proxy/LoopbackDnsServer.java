package dev.paddock.egress.proxy;

import dev.paddock.egress.policy.HostResolver;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A tiny DNS server on a loopback UDP port that answers every A query with 127.0.0.1 and remembers every name it
 * was asked, and a {@link HostResolver} that asks it: the egress proxy pointed at it resolves only through this
 * server, so what the server saw is everything the proxy resolved.
 */
final class LoopbackDnsServer implements AutoCloseable {
    private final DatagramSocket socket;
    private final List<String> queries = new CopyOnWriteArrayList<>();
    private final Thread loop;

    LoopbackDnsServer() throws SocketException {
        socket = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        loop = Thread.ofPlatform().daemon().name("test-dns").start(this::serve);
    }

    /** Every name asked so far, lower case, in order. */
    List<String> queries() {
        return List.copyOf(queries);
    }

    /** How many queries named {@code name} or a name under it. */
    long queriesFor(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        return queries.stream().filter(q -> q.equals(n) || q.endsWith("." + n)).count();
    }

    /** A resolver that sends one A query per lookup to this server over UDP. */
    HostResolver resolver() {
        int port = socket.getLocalPort();
        return host -> {
            try (DatagramSocket client = new DatagramSocket()) {
                client.setSoTimeout(5000);
                byte[] query = query(host);
                client.send(new DatagramPacket(query, query.length, InetAddress.getLoopbackAddress(), port));
                byte[] buf = new byte[512];
                DatagramPacket answer = new DatagramPacket(buf, buf.length);
                client.receive(answer);
                int answers = ((buf[6] & 0xff) << 8) | (buf[7] & 0xff);
                if (answers == 0) throw new UnknownHostException(host);
                int rdata = answer.getLength() - 4; // the one answer's address is the last four bytes
                byte[] address = {buf[rdata], buf[rdata + 1], buf[rdata + 2], buf[rdata + 3]};
                return List.of(InetAddress.getByAddress(host, address));
            } catch (SocketTimeoutException e) {
                throw new UnknownHostException(host + " (no answer)");
            }
        };
    }

    private void serve() {
        byte[] buf = new byte[512];
        while (!socket.isClosed()) {
            DatagramPacket packet = new DatagramPacket(buf, buf.length);
            try {
                socket.receive(packet);
                ByteBuffer in = ByteBuffer.wrap(buf, 0, packet.getLength());
                in.position(12);
                String name = readName(in);
                int questionEnd = in.position() + 4; // qtype, qclass
                queries.add(name.toLowerCase(Locale.ROOT));
                byte[] reply = reply(buf, questionEnd);
                socket.send(new DatagramPacket(reply, reply.length, packet.getSocketAddress()));
            } catch (IOException | RuntimeException e) {
                if (socket.isClosed()) return;
            }
        }
    }

    private static String readName(ByteBuffer in) {
        List<String> labels = new ArrayList<>();
        for (int len; (len = in.get() & 0xff) != 0; ) {
            byte[] label = new byte[len];
            in.get(label);
            labels.add(new String(label, StandardCharsets.US_ASCII));
        }
        return String.join(".", labels);
    }

    private static byte[] query(String host) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(new byte[] {0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0});
        for (String label : host.split("\\.")) {
            byte[] b = label.getBytes(StandardCharsets.US_ASCII);
            out.write(b.length);
            out.writeBytes(b);
        }
        out.writeBytes(new byte[] {0, 0, 1, 0, 1});
        return out.toByteArray();
    }

    /** The question echoed, with one A record of 127.0.0.1 pointing back at it. */
    private static byte[] reply(byte[] request, int questionEnd) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(request[0]);
        out.write(request[1]);
        out.writeBytes(new byte[] {(byte) 0x81, (byte) 0x80, 0, 1, 0, 1, 0, 0, 0, 0});
        out.write(request, 12, questionEnd - 12);
        out.writeBytes(new byte[] {(byte) 0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 127, 0, 0, 1});
        return out.toByteArray();
    }

    @Override
    public void close() throws InterruptedException {
        socket.close();
        loop.join();
    }
}
