# A WebSocket echo server on the standard library only (RFC 6455, enough for a test): every text or binary
# message comes back as it came; a close is answered with a close.
import base64, hashlib, socketserver, struct, sys

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

def read_exact(f, n):
    data = f.read(n)
    if len(data) != n:
        raise EOFError
    return data

class Echo(socketserver.StreamRequestHandler):
    def handle(self):
        headers = {}
        self.rfile.readline()
        while True:
            line = self.rfile.readline().decode("latin-1").strip()
            if not line:
                break
            k, _, v = line.partition(":")
            headers[k.strip().lower()] = v.strip()
        accept = base64.b64encode(hashlib.sha1((headers["sec-websocket-key"] + GUID).encode()).digest()).decode()
        self.wfile.write(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                          "Sec-WebSocket-Accept: " + accept + "\r\n\r\n").encode())
        try:
            while True:
                b0, b1 = read_exact(self.rfile, 2)
                op, n = b0 & 0x0F, b1 & 0x7F
                if n == 126:
                    n = struct.unpack(">H", read_exact(self.rfile, 2))[0]
                elif n == 127:
                    n = struct.unpack(">Q", read_exact(self.rfile, 8))[0]
                mask = read_exact(self.rfile, 4) if b1 & 0x80 else b"\0\0\0\0"
                data = bytes(b ^ mask[i % 4] for i, b in enumerate(read_exact(self.rfile, n)))
                if op == 8:
                    self.send(8, data[:2])
                    return
                if op in (1, 2):
                    self.send(op, data)
        except EOFError:
            return

    def send(self, op, data):
        n = len(data)
        head = bytes([0x80 | op]) + (bytes([n]) if n < 126 else b"\x7e" + struct.pack(">H", n) if n < 65536 else b"\x7f" + struct.pack(">Q", n))
        self.wfile.write(head + data)
        self.wfile.flush()

class Server(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True

Server(("127.0.0.1", int(sys.argv[1])), Echo).serve_forever()
